"""SQuALITY (Wang et al., EMNLP 2022) through the platform: ROUGE computed from the texts, correlated
with the human ratings at three levels, a calibration report, and everything recomputed
independently with rouge-score, numpy and scipy."""

import numpy as np
import pytest
from rouge_score import rouge_scorer, tokenizers
from scipy import linalg, stats

from evaluation.metrics import tokens
from evaluation.models import MetricScore
from evaluation.services import (
    ResultOptions,
    calibrator_apply,
    calibrator_fit,
    metric_correlations,
    metrics_compute,
    results_compute,
)

from .loaders import SQUALITY_CRITERIA, load_squality

ROUGE = ["rouge1", "rouge2", "rougeL"]
SCIPY = {
    "pearson": stats.pearsonr,
    "spearman": stats.spearmanr,
    "kendall": lambda x, y: stats.kendalltau(x, y, variant="b"),
}


class CachingTokenizer:
    """rouge-score's default tokenizer, each text tokenised once (references recur per output)."""

    def __init__(self):
        self.inner, self.cache = tokenizers.DefaultTokenizer(use_stemmer=True), {}

    def tokenize(self, text):
        if text not in self.cache:
            self.cache[text] = self.inner.tokenize(text)
        return self.cache[text]


def independent(items, ratings):
    """(items, systems, human mean per output per criterion, rouge-score F1 per output per type)."""
    names = [i["external_id"] for i in items]
    systems = sorted({o["system"] for i in items for o in i["outputs"]})
    human = {c: np.full((len(names), len(systems)), np.nan) for c in SQUALITY_CRITERIA}
    for c in SQUALITY_CRITERIA:
        for n, item in enumerate(names):
            for s, system in enumerate(systems):
                values = [v for i, sy, _, cr, v in ratings if i == item and sy == system and cr == c]
                human[c][n, s] = np.mean(values)
    scorer = rouge_scorer.RougeScorer(ROUGE, tokenizer=CachingTokenizer())
    rouge = {k: np.full((len(names), len(systems)), np.nan) for k in ROUGE}
    for n, item in enumerate(items):
        for output in item["outputs"]:
            # the human response is one of the references: it is scored against the other three
            refs = [r for r in item["references"] if r.strip() != output["text"].strip()]
            scores = scorer.score_multi(refs, output["text"])
            for k in ROUGE:
                rouge[k][n, systems.index(output["system"])] = scores[k].fmeasure
    return names, systems, human, rouge


@pytest.mark.slow
@pytest.mark.django_db
def test_squality_rouge_correlations_and_calibration(datasets, lead):
    # Given SQuALITY as a rankme project (3 responses side by side, 0–100 sliders, 4 reviewers)
    project, items, ratings = load_squality(lead, datasets)
    items = sorted(items, key=lambda i: i["external_id"])  # the platform's item order
    # When the platform computes ROUGE from the texts
    metrics_compute(project=project, names=ROUGE + ["length"])
    assert MetricScore.objects.filter(project=project, name="rouge1").count() == 300

    names, systems, human, rouge = independent(items, ratings)
    stored = {
        (m.output.item.external_id, m.output.system, m.name): m.value
        for m in MetricScore.objects.filter(project=project, name__in=ROUGE).select_related("output__item")
    }
    for k in ROUGE:
        mine = np.array([[stored[n, s, k] for s in systems] for n in names])
        assert mine == pytest.approx(rouge[k], abs=1e-12)

    # Then its correlations with the raw human ratings equal scipy's on the same numbers
    report = metric_correlations(project=project, metrics=ROUGE, normalisation="none", n_resamples=200)
    rows = {(r["metric"], r["criterion"], r["level"], r["method"]): r for r in report["rows"]}
    for c in SQUALITY_CRITERIA:
        for k in ROUGE:
            for method, fn in SCIPY.items():
                expected = {
                    "global": fn(human[c].ravel(), rouge[k].ravel()).statistic,
                    "item": np.nanmean([fn(human[c][i], rouge[k][i]).statistic for i in range(len(names))]),
                    "system": fn(human[c].mean(axis=0), rouge[k].mean(axis=0)).statistic,
                }
                for level, value in expected.items():
                    row = rows[k, c, level, method]
                    assert row["value"] == pytest.approx(value, abs=1e-9), (k, c, level, method)
                    assert f"({level} level)" in row["label"]
                    assert row["ci_low"] <= row["value"] <= row["ci_high"]

    # And a calibrator of ROUGE-1/2/L and length for "overall", fitted on a 70% split of the items,
    # reports the same weights and held-out correlations as an independent ridge fit
    calibrator = calibrator_fit(
        project=project,
        name="rouge-mix",
        criterion="overall",
        metrics=ROUGE + ["length"],
        alpha=1.0,
        held_out_share=0.3,
        seed=0,
        normalisation="none",
    )
    data = calibrator.report
    held = np.isin(np.arange(len(names)), np.random.default_rng(0).permutation(len(names))[:30])
    length = np.array(
        [[len(tokens(o["text"])) for o in sorted(i["outputs"], key=lambda o: o["system"])] for i in items],
        float,
    )
    features = np.stack([rouge["rouge1"], rouge["rouge2"], rouge["rougeL"], length], axis=-1)
    x_cal, y_cal = features[~held].reshape(-1, 4), human["overall"][~held].ravel()
    x_out, y_out = features[held].reshape(-1, 4), human["overall"][held].ravel()
    mean, scale = x_cal.mean(0), x_cal.std(0)
    z = (x_cal - mean) / scale
    weights = linalg.lstsq(np.vstack([z, np.eye(4)]), np.concatenate([y_cal - y_cal.mean(), np.zeros(4)]))[0]
    assert data["calibrator"]["weights"] == pytest.approx(weights, abs=1e-9)
    predicted = y_cal.mean() + ((x_out - mean) / scale) @ weights
    for method, fn in SCIPY.items():
        assert data["held_out"][method] == pytest.approx(fn(predicted, y_out).statistic, abs=1e-9)
    r_cal = [abs(stats.pearsonr(x_cal[:, k], y_cal).statistic) for k in range(4)]
    assert data["best_single"] == (ROUGE + ["length"])[int(np.argmax(r_cal))]
    assert data["n_calibration"] == 210 and data["n_held_out"] == 90
    assert set(data["gain"]) == {"pearson", "spearman", "kendall"}
    # the saved calibrator scores every output, new ones included
    assert calibrator_apply(calibrator=calibrator) == 300
    assert MetricScore.objects.filter(project=project, name="calibrated:rouge-mix", source="calibrated").count() == 300

    # k-fold cross-validation as an option
    folded = calibrator_fit(
        project=project,
        name="rouge-mix-cv",
        criterion="overall",
        metrics=ROUGE,
        k_folds=5,
        normalisation="none",
    )
    assert folded.report["k_folds"] == 5 and folded.report["n_held_out"] == 300

    # The rankme results: per-rater z-scores by default, the human summaries on top, mean ranks per screen
    results = results_compute(project=project, options=ResultOptions(n_resamples=100, test_resamples=2000))
    overall = next(c for c in results["criteria"] if c.criterion == "overall")
    assert overall.normalisation == "zscore"
    assert overall.systems[0].system == "human"
    assert overall.systems[0].mean_rank < overall.systems[-1].mean_rank
    assert all(c.significant for c in overall.comparisons if "human" in (c.system_a, c.system_b))
