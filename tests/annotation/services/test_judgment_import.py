"""judgment_import: a study run elsewhere lands whole or not at all, raters become pseudonymous."""

import json
from collections import Counter

import pytest
from django.contrib.auth import authenticate
from django.test import RequestFactory

from annotation.models import Item, Judgment, Membership
from annotation.services import item_import, judgment_import
from core.import_records import ImportRejected
from tests.annotation.factories import ProjectFactory
from tests.annotation.import_lines import item, jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def likert(project):
    item_import(project=project, stream=jsonl(item("d1", ("bart", "pegasus")), item("d2", ("bart", "pegasus"))))
    return project


def line(**kw):
    return {"item": "d1", "rater": "worker-42", "criterion": "fluency", "system": "bart", "value": 4, **kw}


def rejected(project, *lines) -> dict[int, str]:
    before = Judgment.objects.filter(project=project).count()
    with pytest.raises(ImportRejected) as caught:
        judgment_import(project=project, stream=jsonl(*lines))
    assert Judgment.objects.filter(project=project).count() == before
    return dict(caught.value.report.errors)


def test_judgments_land_with_pseudonymous_raters_that_cannot_log_in(likert):
    n = judgment_import(
        project=likert,
        stream=jsonl(
            line(submitted_at="2024-03-01T10:00:00Z", shown_order=["pegasus", "bart"]),
            line(system="pegasus", value=2),
            line(rater="worker-7", value=5),
            line(item="d2", criterion="coherence"),
        ),
    )
    assert n == 4
    stored = Judgment.objects.get(
        rater__memberships__external_name="worker-42", output__system="bart", criterion__name="fluency"
    )
    assert (stored.value, stored.shown_order, stored.source) == (4.0, ["pegasus", "bart"], "import")
    assert stored.submitted_at.isoformat() == "2024-03-01T10:00:00+00:00"
    member = Membership.objects.get(project=likert, external_name="worker-42")
    assert member.role == "rater" and not member.user.is_active and not member.user.has_usable_password()
    assert authenticate(RequestFactory().post("/accounts/login/"), username=member.user.username, password="") is None
    assert dict(Item.objects.filter(project=likert).values_list("external_id", "n_judged")) == {"d1": 2, "d2": 1}


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (line(item="nope"), "item 'nope' is not in this project"),
        (line(criterion="grammar"), "criterion 'grammar' is not one of 'fluency', 'coherence'"),
        (line(system="gpt"), "'gpt' is not a system of this item"),
        (line(system=None), "name the output judged"),
        (line(value=6), "value 6 is off the scale 1–5"),
        (line(value="4"), "value must be a number"),
        (line(value=3.5), "whole number"),
        (line(rater=None), "rater is missing"),
        (line(submitted_at="yesterday"), "submitted_at must be an ISO 8601 date-time"),
        (line(shown_order=["bart"]), "shown_order must list this item's systems"),
        (line(duration_ms=-1), "duration_ms must be a non-negative whole number"),
        ({**line(), "score": 1}, "unknown field 'score'"),
        ("not json", "bad JSON"),
    ],
)
def test_each_bad_judgment_line_is_named_and_nothing_is_stored(likert, bad, message):
    errors = rejected(likert, line(rater="fine"), bad)
    assert list(errors) == [2] and message in errors[2]


def test_the_same_rater_output_and_criterion_twice_is_refused(likert):
    errors = rejected(likert, line(), line(value=1))
    assert "judged this output on this criterion already (line 1)" in errors[2]
    judgment_import(project=likert, stream=jsonl(line()))
    with pytest.raises(ImportRejected) as again:
        judgment_import(project=likert, stream=jsonl(line(rater="new"), line()))
    assert "already has a stored judgment" in dict(again.value.report.errors)[2]
    assert Judgment.objects.filter(project=likert).count() == 1


def test_pairwise_values_are_coded_for_the_first_output_whatever_the_display_order(db):
    project = ProjectFactory(task_type="pairwise", criteria=["overall"])
    item_import(project=project, stream=jsonl(item("p", ("m1", "m2"))))
    base = {"item": "p", "criterion": "overall", "shown_order": ["m2", "m1"]}
    judgment_import(
        project=project,
        stream=jsonl(
            {**base, "rater": "a", "value": "m1"},
            {**base, "rater": "b", "value": "m2"},
            {**base, "rater": "c", "value": "tie"},
        ),
    )
    coded = {
        j.rater.memberships.get().external_name: (j.output.system, j.value, j.label)
        for j in Judgment.objects.filter(project=project)
    }
    assert coded == {"a": ("m1", 2.0, "m1"), "b": ("m1", 0.0, "m2"), "c": ("m1", 1.0, "tie")}
    assert "'m3' is not a system" in rejected(project, {**base, "rater": "d", "value": "m3"})[1]


def test_a_real_pairwise_study_loads_whole_and_counts_toward_targets(datasets, db):
    """PandaLM test set (WeOpenML/PandaLM, ICLR 2024): 999 pairs × 3 annotators; per-annotator label
    counts from its README: a1 {0: 97, 1: 427, 2: 475}, a2 {0: 116, 1: 417, 2: 466}, a3 {0: 113, 1: 411, 2: 475}."""
    rows = json.loads((datasets / "pandalm_pairwise" / "testset-v1.json").read_text())
    project = ProjectFactory(task_type="pairwise", criteria=["overall"], raters_per_item=3, double_annotation_share=1.0)
    items, judgments = [], []
    for r in rows:
        m1, m2 = r["cmp_key"].split("_", 1)
        items.append(
            {
                "external_id": str(r["idx"]),
                "input": r["instruction"] + "\n\n" + r["input"],
                "outputs": [{"system": m1, "text": r["response1"]}, {"system": m2, "text": r["response2"]}],
                "subgroup": r["motivation_app"],
            }
        )
        judgments += [
            {
                "item": str(r["idx"]),
                "rater": f"annotator{k}",
                "criterion": "overall",
                "value": {1: m1, 2: m2, 0: "tie"}[r[f"annotator{k}"]],
                "shown_order": [m1, m2],
            }
            for k in (1, 2, 3)
        ]
    assert item_import(project=project, stream=jsonl(*items)) == 999
    assert judgment_import(project=project, stream=jsonl(*judgments)) == 2997

    # coded for response1: 2 = response1 wins (label 1), 0 = response2 wins (label 2), 1 = tie (label 0)
    counts = Counter(Judgment.objects.filter(project=project).values_list("rater__memberships__external_name", "value"))
    label_of_value = {2.0: 1, 0.0: 2, 1.0: 0}
    by_annotator = {
        name: {label_of_value[v]: counts[(name, v)] for v in (0.0, 1.0, 2.0)}
        for name in ("annotator1", "annotator2", "annotator3")
    }
    assert by_annotator == {
        "annotator1": {0: 97, 1: 427, 2: 475},
        "annotator2": {0: 116, 1: 417, 2: 466},
        "annotator3": {0: 113, 1: 411, 2: 475},
    }
    # every item was judged by its three raters: none is left open for serving
    assert not Item.objects.filter(project=project, n_judged__lt=3).exists()
    assert set(Item.objects.filter(project=project).values_list("n_target", flat=True)) == {3}


def test_with_a_rankme_modulus_imported_scores_are_any_positive_number():
    project = ProjectFactory(task_type="rankme", criteria=["quality"], rankme_modulus=100)
    item_import(project=project, stream=jsonl(item("d1", ("bart", "pegasus"), reference="the reference")))
    rankme = {"item": "d1", "rater": "w1", "criterion": "quality", "system": "bart"}

    assert (
        "value must be a positive score relative to the modulus (100), got 0"
        in rejected(project, {**rankme, "value": 250}, {**rankme, "system": "pegasus", "value": 0})[2]
    )
    assert (
        judgment_import(
            project=project, stream=jsonl({**rankme, "value": 250}, {**rankme, "system": "pegasus", "value": 40})
        )
        == 2
    )
    assert sorted(Judgment.objects.filter(project=project).values_list("value", flat=True)) == [40.0, 250.0]
