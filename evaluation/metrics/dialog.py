"""The dialog-eval toolkit's metrics (Csáky, Purgai and Recski, ACL 2019), computed as its code
computes them, on Concord's tokens (``evaluation.metrics.tokens``: the toolkit splits pre-tokenised
text on white space).

The toolkit scores a response against one ground truth: here the item's first reference (after
the output itself is left out). Where its code differs from the usual textbook formula, it is
followed, because the numbers it publishes come from it:

- word probabilities are relative frequencies in the training corpus; a bigram's probability is
  its count over all bigrams (joint, not conditional); words outside the corpus become ``<unk>``;
- per-word entropy averages ``-log2 p`` over the response words the corpus has (unseen ones are
  skipped), utterance entropy is that sum (per-word entropy x the words counted);
- KL divergence is per ground truth: the mean of ``log2(p_gt / p_model)`` over its words (and
  bigrams), with both distributions built over *all* the system's responses and ground truths,
  kept to the words both have and renormalised; a bigram is counted only when its first word is
  in the vocabulary;
- embedding average weights each word vector by ``0.001 / (0.001 + p(word))`` (p from the
  training corpus, 0 outside it); extrema keeps the value of largest magnitude per dimension;
  greedy matching floors each word's best cosine at 0 and is undefined when either direction's
  mean is 0; coherence is the embedding average's cosine between the input and the response;
- distinct-n is over the set of a system's responses (every output of the system gets the value);
- BLEU-n is NLTK's ``sentence_bleu`` with weights (1), (0.5, 0.5), (0.33, 0.33, 0.33) (not
  thirds) and (0.25,) * 4, smoothing method 4; a KeyError or ZeroDivisionError scores 0.

Per system the toolkit reports the mean, the standard deviation (population, ``np.std``) and
``1.97 * std / sqrt(n)`` as the 95% confidence half-width, over the outputs where the metric is
defined: ``dialog_summary``.

References
----------
.. [1] Richárd Csáky, Patrik Purgai and Gábor Recski, "Improving Neural Conversational Models with
       Entropy-Based Data Filtering", ACL 2019. https://aclanthology.org/P19-1567 ; the toolkit:
       github.com/ricsinaruto/dialog-eval
"""

import math
from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from .base import minilm_unavailable
from .dialog_inputs import TrainingCorpus, minilm_word_vectors, training_corpus_load, word_vectors_load

T_95 = 1.97  # dialog-eval's t value for its 95% confidence interval
BLEU_WEIGHTS = {1: (1, 0, 0, 0), 2: (0.5, 0.5, 0, 0), 3: (0.33, 0.33, 0.33, 0), 4: (0.25, 0.25, 0.25, 0.25)}
SIF_A = 0.001  # the embedding average's word weight a / (a + p)


@dataclass(frozen=True)
class DialogSummary:
    n: int
    mean: float | None
    std: float | None
    confidence: float | None  # half-width: mean ± confidence is the 95% interval


def dialog_summary(values) -> DialogSummary:
    """Mean, population standard deviation and ``1.97 * std / sqrt(n)`` over the defined values
    (dialog-eval's ``write_metrics``; the std of a single value is 0).

    >>> dialog_summary([1.0, 2.0, 3.0, float("nan")])
    DialogSummary(n=3, mean=2.0, std=0.816496580927726, confidence=0.9286536055350283)
    """
    x = np.asarray([v for v in values if v is not None and v == v], dtype=float)
    if not len(x):
        return DialogSummary(0, None, None, None)
    std = float(np.std(x)) if len(x) > 1 else 0.0
    return DialogSummary(len(x), float(x.mean()), std, T_95 * std / math.sqrt(len(x)))


def _tokens(text: str) -> list[str]:
    from .text import tokens

    return tokens(text)


def _ground_truths(references) -> list:
    return [_tokens(refs[0]) if refs else None for refs in references]


# --- entropy -------------------------------------------------------------------------------------


def _entropies(words: list[str], corpus: TrainingCorpus) -> tuple[list, list]:
    mapped = [corpus.vocab(w) for w in words]
    uni = [math.log2(corpus.unigram[w]) for w in mapped if w in corpus.unigram]
    bi = [math.log2(corpus.bigram[b]) for b in zip(mapped, mapped[1:], strict=False) if b in corpus.bigram]
    return uni, bi


def entropy_scores(n: int, per_word: bool):
    def scores(outputs, references, resources, **_):
        corpus = _corpus(resources)
        values = []
        for output in outputs:
            logs = _entropies(_tokens(output), corpus)[n - 1]
            values.append(-sum(logs) / (len(logs) if per_word else 1) if logs else math.nan)
        return np.array(values, dtype=float) + 0.0

    return scores


# --- KL divergence -------------------------------------------------------------------------------


def _distribution(sentences, corpus: TrainingCorpus) -> tuple[Counter, Counter]:
    uni, bi = Counter(), Counter()
    for words in sentences:
        mapped = [corpus.vocab(w) for w in words]
        uni.update(mapped)
        bi.update(zip(mapped, mapped[1:], strict=False))
    return uni, bi


def _common(a: Counter, b: Counter) -> tuple[dict, dict]:
    keys = a.keys() & b.keys()
    total_a, total_b = sum(a[k] for k in keys), sum(b[k] for k in keys)
    return {k: a[k] / total_a for k in keys}, {k: b[k] / total_b for k in keys}


def _kl_one(gt: list[str], model_uni, gt_uni, model_bi, gt_bi, corpus: TrainingCorpus) -> tuple[float, float]:
    uni, bi = [], []
    for i, raw in enumerate(gt):
        word = raw
        if raw in model_uni:
            word = corpus.vocab(raw)
            uni.append(math.log2(gt_uni[word] / model_uni[word]))
        if i < len(gt) - 1:
            # the toolkit maps the first word only when it passed the unigram test above
            bigram = (word, corpus.vocab(gt[i + 1]))
            if bigram in model_bi:
                bi.append(math.log2(gt_bi[bigram] / model_bi[bigram]))
    return (sum(uni) / len(uni) if uni else math.nan), (sum(bi) / len(bi) if bi else math.nan)


def _rows_by_system(systems) -> list[list[int]]:
    by_system = defaultdict(list)
    for k, system in enumerate(systems):
        by_system[system].append(k)
    return list(by_system.values())


def kl_scores(n: int):
    def scores(outputs, references, resources, *, systems, **_):
        corpus = _corpus(resources)
        gts = _ground_truths(references)
        values = np.full(len(outputs), np.nan)
        for rows in _rows_by_system(systems):
            model = _distribution([_tokens(outputs[k]) for k in rows], corpus)
            truth = _distribution([gts[k] for k in rows if gts[k] is not None], corpus)
            model_uni, gt_uni = _common(model[0], truth[0])
            model_bi, gt_bi = _common(model[1], truth[1])
            for k in rows:
                if gts[k] is not None:
                    values[k] = _kl_one(gts[k], model_uni, gt_uni, model_bi, gt_bi, corpus)[n - 1]
        return values + 0.0

    return scores


# --- distinct over a system's responses ----------------------------------------------------------


def distinct_scores(n: int):
    def scores(outputs, references, resources, *, systems, **_):
        corpus = _corpus(resources)
        values = np.full(len(outputs), np.nan)
        for rows in _rows_by_system(systems):
            counts = _distribution([_tokens(outputs[k]) for k in rows], corpus)[n - 1]
            if counts:
                values[rows] = len(counts) / sum(counts.values())
        return values

    return scores


# --- embeddings ----------------------------------------------------------------------------------


def _cosine(u: np.ndarray, v: np.ndarray) -> float:
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))


def _average(words, vectors, corpus: TrainingCorpus) -> np.ndarray | None:
    rows = [
        (vector, SIF_A / (SIF_A + corpus.unigram.get(w, 0.0))) for w in words if (vector := vectors.get(w)) is not None
    ]
    if not rows:
        return None
    average = sum(weight * vector for vector, weight in rows) / len(rows)
    return average if np.count_nonzero(average) else None


def _extrema(words, vectors) -> np.ndarray | None:
    found = [v for w in words if (v := vectors.get(w)) is not None]
    if not found:
        return None
    stacked = np.vstack(found)
    # the first vector of largest magnitude wins each dimension (strict > in the toolkit)
    picked = stacked[np.abs(stacked).argmax(axis=0), np.arange(stacked.shape[1])]
    return picked if np.count_nonzero(picked) else None


def _unit_rows(words, vectors) -> np.ndarray:
    found = [v for w in words if (v := vectors.get(w)) is not None]
    if not found:
        return np.zeros((0, 0))
    stacked = np.vstack(found)
    norms = np.linalg.norm(stacked, axis=1)
    return stacked[norms > 0] / norms[norms > 0, None]


def _greedy_side(x: np.ndarray, y: np.ndarray) -> float:
    if not len(x) or not len(y):
        return 0.0
    # the toolkit's matrix starts with a zero column: each best cosine is floored at 0
    return float(np.maximum((x @ y.T).max(axis=1), 0.0).mean())


def _greedy(a, b, vectors) -> float:
    x, y = _unit_rows(a, vectors), _unit_rows(b, vectors)
    one, other = _greedy_side(y, x), _greedy_side(x, y)
    return (one + other) / 2 if one and other else math.nan


def embedding_scores(kind: str, minilm: bool):
    def scores(outputs, references, resources, *, inputs=None, **_):
        # one small product per output: BLAS threads cost more than they save (50x slower measured
        # on a loaded two-core machine), so these run on one BLAS thread
        with threadpool_limits(limits=1, user_api="blas"):
            return _embedding_scores(kind, minilm, outputs, references, resources, inputs)

    return scores


def _embedding_scores(kind, minilm, outputs, references, resources, inputs) -> np.ndarray:
    vectors = minilm_word_vectors() if minilm else _vectors(resources)
    corpus = _corpus(resources) if kind in ("average", "coherence") else None
    others = [_tokens(t) for t in inputs] if kind == "coherence" else _ground_truths(references)
    values = []
    for output, other in zip(outputs, others, strict=True):
        words = _tokens(output)
        if other is None:
            values.append(math.nan)
        elif kind in ("average", "coherence"):
            u, v = _average(words, vectors, corpus), _average(other, vectors, corpus)
            values.append(math.nan if u is None or v is None else _cosine(u, v))
        elif kind == "extrema":
            u, v = _extrema(words, vectors), _extrema(other, vectors)
            values.append(math.nan if u is None or v is None else _cosine(u, v))
        else:
            values.append(_greedy(words, other, vectors))
    return np.array(values, dtype=float)


# --- BLEU ----------------------------------------------------------------------------------------


def bleu_scores(n: int):
    def scores(outputs, references, resources, **_):
        from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

        smoothing = SmoothingFunction().method4
        values = []
        for output, gt in zip(outputs, _ground_truths(references), strict=True):
            if gt is None:
                values.append(math.nan)
                continue
            try:
                values.append(
                    sentence_bleu([gt], _tokens(output), weights=BLEU_WEIGHTS[n], smoothing_function=smoothing)
                )
            except (KeyError, ZeroDivisionError):
                values.append(0.0)
        return np.array(values, dtype=float)

    return scores


# --- what each needs -----------------------------------------------------------------------------


# compute_metrics has checked ``missing_inputs`` before scoring


def _corpus(resources) -> TrainingCorpus:
    return training_corpus_load(resources.training_corpus)


def _vectors(resources):
    return word_vectors_load(resources.word_vectors)


def missing_inputs(name: str, needs: tuple[str, ...], resources) -> str | None:
    """ "<name> is unavailable because …" for the first missing input, or None."""
    reasons = {
        "training_corpus": "no training corpus has been uploaded for this project",
        "word_vectors": "no word-vector file has been uploaded for this project",
    }
    for need in needs:
        if need in reasons:
            path = getattr(resources, need, None)
            if path is None or not path.is_file():
                return f"{name} is unavailable because {reasons[need]}"
        if need == "minilm":
            return minilm_unavailable(name)
    return None


def _spec(name: str, description: str, needs: tuple[str, ...], scores, *, unbatched: bool = False):
    from .base import MetricSpec

    return MetricSpec(
        name,
        description,
        needs,
        scores,
        lambda resources: missing_inputs(name, needs, resources),
        unbatched=unbatched,
    )


_REF = "dialog-eval (Csáky et al. 2019)"
_GT = "the first reference"


def dialog_specs() -> list:
    """The dialog-eval metrics but response length (``length``), under ``dialog_`` names."""
    specs = []
    for n, gram in ((1, "word"), (2, "bigram")):
        specs += [
            _spec(
                f"dialog_word_entropy{n}",
                f"per-word {gram} entropy, -mean log2 p over the response's {gram}s seen in the training corpus "
                f"(Serban et al. 2017; {_REF})",
                ("training_corpus",),
                entropy_scores(n, per_word=True),
            ),
            _spec(
                f"dialog_utterance_entropy{n}",
                f"utterance {gram} entropy, -sum log2 p over the response's {gram}s seen in the training corpus "
                f"(per-word entropy x their number; Serban et al. 2017; {_REF})",
                ("training_corpus",),
                entropy_scores(n, per_word=False),
            ),
            _spec(
                f"dialog_kl{n}",
                f"KL divergence of the ground truths' {gram} distribution from the system's responses', mean "
                f"log2(p_gt/p_model) over {_GT}'s {gram}s, per system ({_REF})",
                ("references", "training_corpus"),
                kl_scores(n),
                unbatched=True,
            ),
            _spec(
                f"dialog_distinct{n}",
                f"distinct-{n}: distinct {gram}s / {gram}s over all of a system's responses, every output given "
                f"its system's value (Li et al. 2016; {_REF})",
                ("training_corpus",),
                distinct_scores(n),
                unbatched=True,
            ),
        ]
    for n in (1, 2, 3, 4):
        weights = ", ".join(f"{w:g}" for w in BLEU_WEIGHTS[n][:n])
        specs.append(
            _spec(
                f"dialog_bleu{n}",
                f"BLEU-{n} against {_GT}: NLTK sentence_bleu, weights ({weights}), smoothing method 4 "
                f"(Papineni et al. 2002; {_REF}), 0-1",
                ("references",),
                bleu_scores(n),
            )
        )
    for minilm, suffix, where in (
        (False, "", "the uploaded word vectors"),
        (True, "_minilm", "all-MiniLM-L6-v2's input embeddings (a word: the mean of its word pieces)"),
    ):
        vectors = "minilm" if minilm else "word_vectors"
        specs += [
            _spec(
                f"dialog_embedding_average{suffix}",
                f"embedding average: cosine of the response's and {_GT}'s mean word vector, each word weighted "
                f"0.001/(0.001+p) by training-corpus frequency, {where} (Liu et al. 2016; {_REF})",
                ("references", "training_corpus", vectors),
                embedding_scores("average", minilm),
            ),
            _spec(
                f"dialog_embedding_extrema{suffix}",
                f"vector extrema: cosine of the response's and {_GT}'s per-dimension largest-magnitude word "
                f"vector values, {where} (Forgues et al. 2014; {_REF})",
                ("references", vectors),
                embedding_scores("extrema", minilm),
            ),
            _spec(
                f"dialog_embedding_greedy{suffix}",
                f"greedy matching: mean best word-vector cosine (floored at 0) from response to {_GT} and back, "
                f"averaged, {where} (Rus and Lintean 2012; {_REF})",
                ("references", vectors),
                embedding_scores("greedy", minilm),
            ),
            _spec(
                f"dialog_coherence{suffix}",
                f"coherence: cosine of the input's and the response's weighted mean word vector (as embedding "
                f"average), {where} (Xu et al. 2018; {_REF})",
                ("input", "training_corpus", vectors),
                embedding_scores("coherence", minilm),
            ),
        ]
    return specs
