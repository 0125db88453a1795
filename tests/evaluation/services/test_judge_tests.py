"""The judge tests on an imported study: the alt-test, prediction-powered estimates and the confusion
table equal the statistics run on arrays assembled here from the imported records."""

import numpy as np
import pytest

from core.import_records import ImportRejected
from evaluation.models import Judge
from evaluation.services import (
    judge_alt_test_report,
    judge_confusion,
    judge_prediction_powered_report,
    judge_rating_import,
    study_plan,
)
from evaluation.stats import alt_test, alt_test_single_expert, benjamini_yekutieli, prediction_powered_mean
from tests.evaluation.datasets.loaders import lines
from tests.evaluation.judge_studies import SYSTEMS, likert_study, pairwise_study

pytestmark = pytest.mark.django_db


def _arrays(records):
    """(units, humans (3, n_units), judge, subgroup) with units = (item, system), from the records."""
    units = sorted({(r["item"], r["system"]) for r in records["judge"]})
    at = {u: k for k, u in enumerate(units)}
    humans = np.full((3, len(units)), np.nan)
    for r in records["humans"]:
        humans[int(r["rater"][1:]), at[r["item"], r["system"]]] = r["value"]
    judge = np.full(len(units), np.nan)
    for r in records["judge"]:
        judge[at[r["item"], r["system"]]] = r["value"]
    subgroup = np.array(["news" if int(i[3:]) % 2 else "dialogue" for i, _ in units], dtype=object)
    return units, humans, judge, subgroup


def test_alt_test_report_equals_the_statistic_on_the_imported_records(lead):
    project, records = likert_study(lead)
    report = judge_alt_test_report(project=project, epsilon=0.2)
    (criterion,) = report["criteria"]
    (row,) = criterion["judges"]
    assert report["alignment"] == "neg_rmse"
    assert (row["model"], row["prompt_hash"], row["run_on"]) == ("gpt-4o-2024-08-06", "9f2c41d0aa", "2025-03-01")
    _, humans, judge, subgroup = _arrays(records)
    (expected,) = alt_test(humans, judge, alignment="neg_rmse", epsilon=0.2)
    overall = row["overall"]
    assert overall["winning_rate"] == expected.winning_rate
    assert overall["advantage_probability"] == pytest.approx(expected.advantage_probability)
    assert overall["n_items"] == 120 and [c["rater"] for c in overall["comparisons"]] == ["r0", "r1", "r2"]
    assert [c["p_value"] for c in overall["comparisons"]] == pytest.approx([c.p_value for c in expected.comparisons])
    # per subgroup: each tested apart, one correction over all six tests
    by_group = alt_test(humans, judge, alignment="neg_rmse", epsilon=0.2, groups=subgroup)
    assert [g["subgroup"] for g in row["subgroups"]] == ["dialogue", "news"]
    assert [g["winning_rate"] for g in row["subgroups"]] == [g.winning_rate for g in by_group]
    p = [c.p_value for g in by_group for c in g.comparisons]
    assert [c["judge_wins"] for g in row["subgroups"] for c in g["comparisons"]] == benjamini_yekutieli(p).tolist()


def test_too_thin_studies_say_so(lead):
    project, _ = likert_study(lead, n_rated=12)
    (row,) = judge_alt_test_report(project=project, epsilon=0.1)["criteria"][0]["judges"]
    assert row["overall"] is None
    assert "no rater labelled 30 items" in row["error"] and "3 raters recommended" in row["error"]


def test_a_thin_study_tested_with_wilcoxon_and_against_an_expert(lead):
    # 12 items x 2 systems = 24 units per rater: below the t-test's 30, above Wilcoxon's 10
    project, records = likert_study(lead, n_rated=12)
    _, humans, judge, subgroup = _arrays(records)
    report = judge_alt_test_report(project=project, epsilon=0.1, test="wilcoxon")
    (row,) = report["criteria"][0]["judges"]
    (expected,) = alt_test(humans, judge, alignment="neg_rmse", epsilon=0.1, test="wilcoxon")
    assert report["test"] == "wilcoxon" and row["error"] is None
    assert [c["p_value"] for c in row["overall"]["comparisons"]] == pytest.approx(
        [c.p_value for c in expected.comparisons]
    )
    assert any("Wilcoxon" in n for n in row["overall"]["notes"])
    # r0 as the expert: r1, r2 and the judge compete to represent r0's labels
    report = judge_alt_test_report(project=project, epsilon=0.1, test="wilcoxon", expert="r0")
    (row,) = report["criteria"][0]["judges"]
    (expected,) = alt_test_single_expert(
        humans[0], humans[1:], judge, alignment="neg_rmse", epsilon=0.1, test="wilcoxon"
    )
    assert report["expert"] == "r0" and [c["rater"] for c in row["overall"]["comparisons"]] == ["r1", "r2"]
    assert row["overall"]["winning_rate"] == expected.winning_rate
    assert [c["p_value"] for c in row["overall"]["comparisons"]] == pytest.approx(
        [c.p_value for c in expected.comparisons]
    )
    assert report["criteria"][0]["baseline"]["overall"]["n_raters"] == 2
    with pytest.raises(ValueError, match="expert 'r9' is not a rater of this project"):
        judge_alt_test_report(project=project, epsilon=0.1, expert="r9")


def test_prediction_powered_report_equals_the_statistic(lead):
    project, records = likert_study(lead)
    report = judge_prediction_powered_report(project=project, judge="gpt")
    units, humans, judge, _ = _arrays(records)
    n = (~np.isnan(humans)).sum(axis=0)
    human_mean = np.where(n > 0, np.nansum(humans, axis=0) / np.maximum(n, 1), np.nan)
    rows = {(e["kind"], e["label"]): e for e in report["criteria"][0]["estimands"]}
    for system in SYSTEMS:
        mine = np.array([s == system for _, s in units])
        rated = mine & ~np.isnan(human_mean)
        expected = prediction_powered_mean(human_mean[rated], judge[rated], judge[mine & np.isnan(human_mean)])
        row = rows["mean", system]
        assert (row["n_human"], row["n_judge_only"]) == (60, 40)
        assert row["prediction_powered"]["value"] == pytest.approx(expected.prediction_powered.value)
        assert row["prediction_powered"]["ci"] == pytest.approx(
            [expected.prediction_powered.ci_low, expected.prediction_powered.ci_high]
        )
        # the judge rates 0.5 too high (less after clipping at 5): its own mean is off, the corrected
        # one close to the humans'
        assert row["judge_only"]["value"] > row["human_only"]["value"] + 0.2
        assert abs(row["prediction_powered"]["value"] - row["human_only"]["value"]) < 0.2
    win = rows["win_rate", "bart vs pegasus"]
    a = np.array([s == "bart" for _, s in units])
    h = 0.5 * (np.sign(human_mean[a] - human_mean[~a]) + 1)
    j = 0.5 * (np.sign(judge[a] - judge[~a]) + 1)
    expected = prediction_powered_mean(h[~np.isnan(h)], j[~np.isnan(h)], j[np.isnan(h)])
    assert win["prediction_powered"]["value"] == pytest.approx(expected.prediction_powered.value)
    assert win["n_saved"] == pytest.approx(expected.n_saved)


def test_confusion_against_the_human_majority(lead):
    project, records = likert_study(lead)
    confusion = judge_confusion(project=project, judge="gpt", criterion="fluency")
    units, humans, judge, _ = _arrays(records)
    assert confusion["labels"] == ["1", "2", "3", "4", "5"]
    counts = {}
    no_majority = 0
    for k, (item, system) in enumerate(units):
        column = humans[:, k][~np.isnan(humans[:, k])]
        if not len(column):
            continue
        values, n = np.unique(column, return_counts=True)
        if (n == n.max()).sum() > 1:
            no_majority += 1
            continue
        counts.setdefault((str(int(values[n.argmax()])), str(int(judge[k]))), []).append((item, system))
    assert confusion["n_no_majority"] == no_majority
    assert confusion["n_units"] == sum(len(v) for v in counts.values())
    for row in confusion["rows"]:
        for cell in row["cells"]:
            assert sorted((u["item"], u["system"]) for u in cell["units"]) == sorted(
                counts.get((row["human"], cell["judge"]), [])
            )
            assert cell["count"] == len(cell["units"])


def test_unknown_names_and_rankme_confusion_are_refused(lead):
    project, _ = likert_study(lead)
    with pytest.raises(ValueError, match="judge 'claude' is not in this project"):
        judge_prediction_powered_report(project=project, judge="claude")
    with pytest.raises(ValueError, match="criterion 'style' is not in this project"):
        judge_confusion(project=project, judge="gpt", criterion="style")
    with pytest.raises(ValueError, match="name the judge"):
        judge_confusion(project=project, judge="", criterion="fluency")


def test_judge_versions_are_checked_on_import(lead):
    project, _ = likert_study(lead, n_items=4, n_rated=2)
    line = {"judge": "gpt-v2", "item": "doc0", "system": "bart", "criterion": "fluency", "value": 3}
    with pytest.raises(ImportRejected) as rejected:
        judge_rating_import(
            project=project,
            stream=lines(
                [
                    line | {"model": "gpt-4o", "run_date": "2025-03-01"},
                    line | {"system": "pegasus", "model": "gpt-4o-mini", "run_date": "2025-03-01"},
                    line | {"item": "doc1", "run_date": "March"},
                ]
            ),
        )
    errors = str(rejected.value.report.as_dict())
    assert "another version on line 1" in errors and "run_date must be a date as YYYY-MM-DD" in errors
    assert not Judge.objects.filter(name="gpt-v2").exists()
    assert Judge.objects.get(name="gpt").version == "gpt-4o-2024-08-06 · 9f2c41d0 · 2025-03-01"


def _bart_outcome(winner):
    return 1.0 if winner == "bart" else 0.0 if winner == "pegasus" else 0.5


def test_pairwise_study_alt_test_win_rate_and_confusion(lead):
    project, records = pairwise_study(lead)
    items = sorted({r["item"] for r in records["judge"]}, key=lambda i: int(i[4:]))
    at = {i: k for k, i in enumerate(items)}
    # coded for each item's first system as imported: 0 loses, 1 tie, 2 wins
    first = {f"pair{i}": order[0] for i, order in records["order"].items()}

    def code(item, winner):
        return 1.0 if winner == "tie" else 2.0 if winner == first[item] else 0.0

    humans = np.full((3, len(items)), np.nan)
    for r in records["humans"]:
        humans[int(r["rater"][1:]), at[r["item"]]] = code(r["item"], r["value"])
    judge = np.array([code(r["item"], r["value"]) for r in records["judge"]])
    # the alt-test scores pairwise outcomes by the share of matching labels
    report = judge_alt_test_report(project=project, epsilon=0.1)
    assert report["alignment"] == "accuracy"
    (expected,) = alt_test(humans, judge, alignment="accuracy", epsilon=0.1)
    overall = report["criteria"][0]["judges"][0]["overall"]
    assert overall["advantage_probability"] == pytest.approx(expected.advantage_probability)
    assert [c["p_value"] for c in overall["comparisons"]] == pytest.approx([c.p_value for c in expected.comparisons])
    # the win rate of bart over pegasus, whichever came first on the item
    (row,) = judge_prediction_powered_report(project=project, judge="gpt")["criteria"][0]["estimands"]
    assert (row["kind"], row["label"]) == ("win_rate", "bart vs pegasus")
    h = np.full(len(items), np.nan)
    for i in items[:60]:
        h[at[i]] = np.mean([_bart_outcome(r["value"]) for r in records["humans"] if r["item"] == i])
    j = np.array([_bart_outcome(r["value"]) for r in records["judge"]])
    expected = prediction_powered_mean(h[:60], j[:60], j[60:])
    assert row["prediction_powered"]["value"] == pytest.approx(expected.prediction_powered.value)
    assert row["judge_only"]["value"] > row["prediction_powered"]["value"]
    confusion = judge_confusion(project=project, judge="gpt", criterion="overall")
    assert confusion["labels"] == ["first loses", "tie", "first wins"]
    assert confusion["n_units"] + confusion["n_no_majority"] == 60


def test_pairwise_plan_and_the_study_now(lead):
    project, records = pairwise_study(lead)
    with pytest.raises(ValueError, match="compare by win_rate or bradley_terry"):
        study_plan(project=project, criterion="overall", comparison="mean_difference", effect=0.3)
    plan = study_plan(project=project, criterion="overall", comparison="win_rate", effect=0.6, items_grid=[50, 200])
    now = plan["now"]
    assert now["systems"] == ["bart", "pegasus"] and now["n_items"] == 60 and now["raters_per_item"] == 3
    outcomes = [
        np.mean([_bart_outcome(r["value"]) for r in records["humans"] if r["item"] == f"pair{i}"]) for i in range(60)
    ]
    assert now["estimate"] == pytest.approx(np.mean(outcomes))
    assert plan["components"]["item_system"] == 0.0 and plan["components"]["rater"] == 0.0


def test_a_constant_judge_runs_beside_every_judge(lead):
    project, records = likert_study(lead)
    (criterion,) = judge_alt_test_report(project=project, epsilon=0.2)["criteria"]
    baseline = criterion["baseline"]
    _, humans, _, _ = _arrays(records)
    assert baseline["value"] == float(np.median(humans[~np.isnan(humans)]))
    (expected,) = alt_test(humans, np.full(humans.shape[1], baseline["value"]), alignment="neg_rmse", epsilon=0.2)
    assert baseline["overall"]["winning_rate"] == expected.winning_rate
    assert baseline["overall"]["advantage_probability"] == pytest.approx(expected.advantage_probability)


def test_versions_of_a_judge_are_compared_side_by_side(lead, api_client):
    project, records = likert_study(lead)
    # a second run of the same model with another prompt, a month later, a little less biased
    second = [
        r | {"judge": "gpt #2", "prompt_hash": "77aa01bc", "run_date": "2025-04-01", "value": max(1.0, r["value"] - 1)}
        for r in records["judge"]
    ]
    judge_rating_import(project=project, stream=lines(second))
    rows = judge_alt_test_report(project=project, epsilon=0.2)["criteria"][0]["judges"]
    assert [(r["judge"], r["run_on"]) for r in rows] == [("gpt", "2025-03-01"), ("gpt #2", "2025-04-01")]
    assert rows[1]["version"] == "gpt-4o-2024-08-06 · 77aa01bc · 2025-04-01"
    assert rows[0]["overall"]["advantage_probability"] != rows[1]["overall"]["advantage_probability"]
    api_client.force_authenticate(lead)
    listed = api_client.get(f"/api/v1/projects/{project.pk}/judges/").json()["results"]
    assert [(j["name"], j["model"], j["prompt_hash"], j["run_on"]) for j in listed] == [
        ("gpt", "gpt-4o-2024-08-06", "9f2c41d0aa", "2025-03-01"),
        ("gpt #2", "gpt-4o-2024-08-06", "77aa01bc", "2025-04-01"),
    ]
