"""Study planning on an imported study: components and curve from the project's judgments or from
an imported pilot, where the study stands, and applying the design's raters per item."""

import pytest

from annotation.models import Item
from annotation.services import item_import
from evaluation.services import study_plan, study_plan_apply
from evaluation.stats import InsufficientDataError, interim_answer
from tests.evaluation.datasets.loaders import lines, new_project
from tests.evaluation.judge_studies import likert_study

pytestmark = pytest.mark.django_db


def test_plan_from_the_project_and_the_study_now(lead):
    project, records = likert_study(lead)
    plan = study_plan(
        project=project,
        criterion="fluency",
        comparison="mean_difference",
        effect=0.3,
        items_grid=[20, 60, 200],
        raters_grid=[1, 3],
        target_half_width=0.2,
    )
    assert plan["source"] == "project" and len(plan["points"]) == 6
    assert plan["components"]["n_items"] == 60 and plan["components"]["n_raters"] == 3
    assert set(plan["half_width"]["items"]) == {1, 3}
    assert plan["half_width"]["items"][1] >= plan["half_width"]["items"][3]
    now = plan["now"]
    # the interim answer is the t interval of the per-item differences of the humans' means
    means = {}
    for r in records["humans"]:
        means.setdefault((r["item"], r["system"]), []).append(r["value"])
    d = [sum(means[i, "bart"]) / 3 - sum(means[i, "pegasus"]) / 3 for i, _ in sorted(means) if _ == "bart"]
    expected = interim_answer(d)
    assert now["systems"] == ["bart", "pegasus"] and now["n_items"] == 60 and now["raters_per_item"] == 3
    assert now["estimate"] == pytest.approx(expected.estimate)
    assert now["answered"] == expected.decided
    assert now["more_items_for_target"] is not None


def test_plan_from_an_imported_pilot(lead):
    project, records = likert_study(lead, n_items=4, n_rated=2)
    pilot = [
        {"item": f"p{i}", "system": s, "rater": f"w{(i + k) % 7}", "value": float((i * 7 + k * 3 + len(s)) % 5 + 1)}
        for i in range(40)
        for s in ("a", "b")
        for k in range(2)
    ]
    plan = study_plan(project=project, criterion="fluency", comparison="win_rate", effect=0.65, pilot=pilot)
    assert plan["source"] == "pilot" and plan["now"] is None
    assert plan["components"]["n_items"] == 40 and plan["components"]["n_ratings"] == 160
    with pytest.raises(ValueError, match="pilot record 2: value must be a finite number"):
        study_plan(
            project=project,
            criterion="fluency",
            comparison="win_rate",
            effect=0.65,
            pilot=[pilot[0], pilot[1] | {"value": "x"}],
        )
    with pytest.raises(InsufficientDataError, match="no output was rated by two raters"):
        study_plan(project=project, criterion="fluency", comparison="win_rate", effect=0.65, pilot=pilot[::2])


def test_bad_plans_are_refused(lead):
    project, _ = likert_study(lead, n_items=4, n_rated=2)
    with pytest.raises(ValueError, match="comparison must be one of"):
        study_plan(project=project, criterion="fluency", comparison="elo", effect=0.3)
    with pytest.raises(ValueError, match="criterion 'style' is not in this project"):
        study_plan(project=project, criterion="style", comparison="mean_difference", effect=0.3)
    with pytest.raises(ValueError, match="win rate to detect must be between 0 and 1"):
        study_plan(project=project, criterion="fluency", comparison="win_rate", effect=3)
    with pytest.raises(ValueError, match="items_grid must hold item counts from 2"):
        study_plan(project=project, criterion="fluency", comparison="mean_difference", effect=0.3, items_grid=[1])


def test_apply_sets_every_item_before_raters_start_and_refuses_after(lead):
    fresh = new_project(lead, "next round", "likert", [{"name": "fluency", "scale_min": 1, "scale_max": 5}])
    item_import(
        project=fresh,
        stream=lines(
            {"external_id": f"d{i}", "input": "x", "outputs": [{"system": "a", "text": "t"}]} for i in range(5)
        ),
    )
    study_plan_apply(project=fresh, raters_per_item=3, by=lead)
    fresh.refresh_from_db()
    assert (fresh.raters_per_item, fresh.double_annotation_share) == (3, 1.0)
    assert set(Item.objects.filter(project=fresh).values_list("n_target", flat=True)) == {3}
    started, _ = likert_study(lead, n_items=4, n_rated=2)
    with pytest.raises(ValueError, match="cannot change once raters have started"):
        study_plan_apply(project=started, raters_per_item=3, by=lead)


def test_plans_too_large_to_simulate_are_refused(lead):
    project, _ = likert_study(lead, n_items=4, n_rated=2)
    with pytest.raises(ValueError, match="would simulate 2,400,000,000 values"):
        study_plan(
            project=project,
            criterion="fluency",
            comparison="mean_difference",
            effect=0.3,
            items_grid=[20_000],
            raters_grid=[1, 2, 3, 4, 5, 6],
            n_simulations=20_000,
        )
    with pytest.raises(ValueError, match="finite numbers"):
        study_plan(project=project, criterion="fluency", comparison="mean_difference", effect=float("nan"))
