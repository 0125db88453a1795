"""HANNA (Chhun et al., COLING 2022), loaded through the platform's imports: system means as
published, all 72 metrics' system- and story-level Kendall tau against the authors' own
reference/*_kendall.csv, and the shipped LLM ratings as model judges beside human agreement."""

import csv
import json

import krippendorff
import numpy as np
import pytest

from evaluation.services import ResultOptions, judge_agreement_report, metric_correlations, results_compute

from .loaders import HANNA_CRITERIA, HANNA_LLMS, load_hanna


def reference(datasets, level):
    with open(datasets / "hanna_story_eval" / "reference" / f"{level}_kendall.csv", encoding="utf-8") as f:
        return {
            row["Model"]: {c: float(row[f"{c}_{level}_kendall"]) for c in HANNA_CRITERIA} for row in csv.DictReader(f)
        }


@pytest.mark.slow
@pytest.mark.django_db(transaction=False)
def test_hanna_results_metric_correlations_and_llm_judges(datasets, lead):
    expected = json.loads((datasets / "hanna_story_eval" / "expected_values.json").read_text())
    # Given HANNA imported as items, judgments (19,008), 72 metric columns and 5 LLM judges
    project, table, metrics, n_ratings = load_hanna(lead, datasets)
    assert len(metrics) == 72

    # Then the system means equal the published table (Human excluded there; 2 decimals)
    results = results_compute(project=project, options=ResultOptions(n_resamples=200))
    assert results["n_judgments"] == n_ratings == 19008
    means = {c.criterion: {s.system: s.mean for s in c.systems} for c in results["criteria"]}
    for system, published in expected["system_means_excluding_Human_published"]["values"].items():
        for criterion, value in published.items():
            assert round(means[criterion][system], 2) == value, (system, criterion)
    for system, reproduced in expected["system_means_reproduced"].items():
        for criterion, value in reproduced.items():
            assert round(means[criterion][system], 2) == value, (system, criterion)
    relevance = next(c for c in results["criteria"] if c.criterion == "Relevance")
    gpt2 = next(s for s in relevance.systems if s.system == "GPT-2")
    assert gpt2.mean_ci[0] < gpt2.mean < gpt2.mean_ci[1]
    assert sum(gpt2.distribution.values()) == 288
    assert any(c.significant for c in relevance.comparisons)

    # And all 72 x 6 system- and story-level Kendall tau-b equal the authors' |tau| (1e-4)
    report = metric_correlations(
        project=project,
        exclude_systems=["Human"],
        levels=["system", "item"],
        methods=["kendall"],
        n_resamples=0,
    )
    assert report["kendall_variant"] == "tau-b" and "Human" not in report["systems"]
    mine = {(r["metric"], r["criterion"], r["level"]): r["value"] for r in report["rows"]}
    for level, name in (("system", "system"), ("story", "item")):
        for metric, per_criterion in reference(datasets, level).items():
            for criterion, published in per_criterion.items():
                value = mine[metric, criterion, name]
                if np.isnan(published):
                    assert value is None, (metric, criterion, level)
                else:
                    assert abs(value) == pytest.approx(published, abs=1e-4), (metric, criterion, level)
    assert len([r for r in report["rows"] if r["value"] is not None]) >= 72 * 6 * 2 - 12

    # Then the LLM ratings, loaded as model judges, are reported beside human-human agreement
    agreement = judge_agreement_report(project=project, n_resamples=100)
    by_criterion = {c["criterion"]: c for c in agreement["criteria"]}
    slots = _slot_matrix(datasets)
    for criterion in HANNA_CRITERIA:
        entry = by_criterion[criterion]
        assert entry["n_humans"] == 3 and entry["n_units"] == 1056
        assert {j["judge"] for j in entry["judges"]} == {f"{llm} #1" for llm in HANNA_LLMS}
        assert all(j["rater_type"] == "model" for j in entry["judges"])
        # independent recomputation with the krippendorff package on the raw file: mean pairwise alpha
        pairs = [
            krippendorff.alpha(slots[criterion][[a, b]], level_of_measurement="interval")
            for a, b in ((0, 1), (0, 2), (1, 2))
        ]
        human = entry["human_human"]["alpha_interval"]
        assert human["value"] == pytest.approx(np.mean(pairs), abs=1e-9)
        assert human["ci"][0] < human["value"] < human["ci"][1]
        chatgpt = next(j for j in entry["judges"] if j["judge"] == "ChatGPT #1")
        llm = _llm_vector(table, "ChatGPT", criterion)
        per_slot = [
            krippendorff.alpha(np.vstack([llm, slots[criterion][k]]), level_of_measurement="interval") for k in range(3)
        ]
        assert chatgpt["judge_human"]["alpha_interval"]["value"] == pytest.approx(np.mean(per_slot), abs=1e-9)
        assert len(chatgpt["per_human"]) == 3


def _slot_matrix(datasets) -> dict:
    """criterion -> (3 slots, 1056 stories) from hanna_ratings_long.csv, stories in HANNA id order."""
    out = {c: np.full((3, 1056), np.nan) for c in HANNA_CRITERIA}
    with open(datasets / "hanna_story_eval" / "hanna_ratings_long.csv", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            out[r["criterion"]][int(r["rater_slot"]) - 1, int(r["story_id"])] = float(r["score"])
    return out


def _llm_vector(table, llm, criterion) -> np.ndarray:
    code = {
        v: k
        for k, v in {
            "RE": "Relevance",
            "CH": "Coherence",
            "EM": "Empathy",
            "SU": "Surprise",
            "EG": "Engagement",
            "CX": "Complexity",
        }.items()
    }[criterion]
    values = np.concatenate([row[f"{llm} {code} 1"] for row in table])
    return np.where((values >= 1) & (values <= 5), values, np.nan)  # off-scale = unparsed, as the loader does
