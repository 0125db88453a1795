"""judgment_submit: rows per criterion × output, pairwise mapping, idempotency, revisions, refusals."""

import math
import random
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from annotation.models import Assignment, Item, Judgment
from annotation.services import (
    LeaseGone,
    NotYourAssignment,
    RaterPaused,
    assignment_next_for_rater,
    judgment_submit,
)
from tests.annotation.factories import ItemFactory
from tests.annotation.rating import add_raters, full_values, rating_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def likert():
    project = rating_project(n_items=2, n_target=2, criteria=["fluency", "coherence"], systems=["s1", "s2"])
    (rater,) = add_raters(project)
    return project, rater, assignment_next_for_rater(project_id=project.pk, rater=rater)


def test_one_row_per_criterion_and_output_with_the_order_shown(likert):
    project, rater, assignment = likert
    values = full_values(assignment, value=4)

    result = judgment_submit(
        rater=rater, assignment_id=assignment.pk, values=values, client_token="t1", duration_ms=4200
    )

    assert result.created and not result.revision
    rows = Judgment.objects.filter(assignment=assignment)
    assert rows.count() == 4
    shown = [["s1", "s2"][p] for p in assignment.shown_order]
    assert all(j.shown_order == shown and j.value == 4 and j.duration_ms == 4200 and j.is_current for j in rows)
    assert {(j.criterion.name, j.output.system) for j in rows} == {
        (c, s) for c in ("fluency", "coherence") for s in ("s1", "s2")
    }
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.DONE
    item = Item.objects.get(pk=assignment.item_id)
    assert (item.n_judged, item.n_leased) == (1, 0)


def test_display_positions_map_back_to_the_systems(likert):
    project, rater, assignment = likert
    left_system = ["s1", "s2"][assignment.shown_order[0]]
    values = [
        {"criterion": c, "position": p, "value": 5 if p == 0 else 1} for c in ("fluency", "coherence") for p in (0, 1)
    ]

    judgment_submit(rater=rater, assignment_id=assignment.pk, values=values)

    fives = set(Judgment.objects.filter(assignment=assignment, value=5).values_list("output__system", flat=True))
    assert fives == {left_system}


def test_the_same_client_token_returns_the_stored_judgment(likert):
    project, rater, assignment = likert
    values = full_values(assignment)
    first = judgment_submit(rater=rater, assignment_id=assignment.pk, values=values, client_token="retry-me")

    again = judgment_submit(rater=rater, assignment_id=assignment.pk, values=values, client_token="retry-me")

    assert not again.created
    assert [j.pk for j in again.judgments] == [j.pk for j in first.judgments]
    assert Judgment.objects.count() == 4
    assert Item.objects.get(pk=assignment.item_id).n_judged == 1


def test_a_revision_keeps_the_old_rows_and_the_newest_counts(likert):
    project, rater, assignment = likert
    judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, value=2))

    result = judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, value=5))

    assert result.created and result.revision
    assert Judgment.objects.count() == 8
    assert set(Judgment.objects.filter(is_current=True).values_list("value", flat=True)) == {5.0}
    assert Item.objects.get(pk=assignment.item_id).n_judged == 1  # still one rater


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("4", "must be a number"),
        (True, "must be a number"),
        (3.5, "whole number"),
        (6, "off the scale 1–5"),
        (None, "must be a number"),
    ],
)
def test_bad_likert_values_are_refused_naming_criterion_and_position(likert, value, message):
    project, rater, assignment = likert
    values = full_values(assignment)
    values[1]["value"] = value

    with pytest.raises(ValidationError) as exc:
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=values)

    (error,) = exc.value.message_dict["values"]
    assert message in error and f"criterion {values[1]['criterion']!r}, position {values[1]['position']}" in error
    assert not Judgment.objects.exists()


def test_missing_unknown_and_doubled_answers_are_each_named(likert):
    project, rater, assignment = likert
    values = full_values(assignment)
    values = values[:-1] + [
        {"criterion": "grammar", "position": 0, "value": 3},
        values[0],
        {"criterion": "fluency", "position": 7, "value": 3},
    ]

    with pytest.raises(ValidationError) as exc:
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=values)

    errors = " | ".join(exc.value.message_dict["values"])
    assert "unknown criterion" in errors and "'grammar'" in errors
    assert "answered twice" in errors
    assert "position must be 0 to 1" in errors
    assert "no value given" in errors


def test_pairwise_a_b_tie_map_to_the_first_output_as_imported():
    project = rating_project(task_type="pairwise", n_items=3, criteria=["overall"], systems=["bart", "t5"])
    (rater,) = add_raters(project)
    coded = {}
    for answer in ("A", "B", "tie"):
        a = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=random.Random(1))
        judgment_submit(rater=rater, assignment_id=a.pk, values=[{"criterion": "overall", "value": answer}])
        j = Judgment.objects.get(assignment=a)
        left = ["bart", "t5"][a.shown_order[0]]
        coded[answer] = (left, j.output.system, j.value, j.label)

    for answer, (left, judged, value, label) in coded.items():
        assert judged == "bart"  # always the item's first output
        winner = {"A": left, "B": {"bart": "t5", "t5": "bart"}[left], "tie": "tie"}[answer]
        assert label == winner
        assert value == {"tie": 1.0, "bart": 2.0, "t5": 0.0}[winner]


def test_pairwise_refuses_anything_but_a_b_tie():
    project = rating_project(task_type="pairwise", n_items=1, criteria=["overall"])
    (rater,) = add_raters(project)
    a = assignment_next_for_rater(project_id=project.pk, rater=rater)

    with pytest.raises(ValidationError, match="must be one of 'A', 'tie', 'B'"):
        judgment_submit(rater=rater, assignment_id=a.pk, values=[{"criterion": "overall", "value": "sysA"}])


def test_rankme_takes_numbers_in_the_range():
    project = rating_project(task_type="rankme", n_items=1, criteria=["quality"], systems=["a", "b", "c"])
    (rater,) = add_raters(project)
    a = assignment_next_for_rater(project_id=project.pk, rater=rater)
    values = [{"criterion": "quality", "position": p, "value": v} for p, v in enumerate((12.5, 100, 0))]

    judgment_submit(rater=rater, assignment_id=a.pk, values=values)

    assert sorted(Judgment.objects.values_list("value", flat=True)) == [0.0, 12.5, 100.0]
    values[0]["value"] = 100.5
    with pytest.raises(ValidationError, match="off the scale 0–100"):
        judgment_submit(rater=rater, assignment_id=a.pk, values=values)


def test_with_a_modulus_rankme_takes_any_positive_score_stored_as_given():
    project = rating_project(task_type="rankme", n_items=0, criteria=["quality"], rankme_modulus=100)
    ItemFactory(project=project, systems=["a", "b", "c"], references=["the reference"])
    (rater,) = add_raters(project)
    a = assignment_next_for_rater(project_id=project.pk, rater=rater)
    values = [{"criterion": "quality", "position": p, "value": v} for p, v in enumerate((0.25, 100, 12000))]

    judgment_submit(rater=rater, assignment_id=a.pk, values=values)

    assert sorted(Judgment.objects.values_list("value", flat=True)) == [0.25, 100.0, 12000.0]
    assert Judgment.objects.count() == 3  # the reference's fixed score is no judgment


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0, "must be a positive score relative to the modulus (100), got 0"),
        (-1, "must be a positive score relative to the modulus (100), got -1"),
        (math.nan, "must be a finite number, got nan"),
        (math.inf, "must be a finite number, got inf"),
        ("100", "must be a number, got '100'"),
    ],
)
def test_with_a_modulus_zero_negatives_non_finite_and_strings_are_refused(value, message):
    project = rating_project(task_type="rankme", n_items=0, criteria=["quality"], rankme_modulus=100)
    ItemFactory(project=project, systems=["a", "b"], references=["the reference"])
    (rater,) = add_raters(project)
    a = assignment_next_for_rater(project_id=project.pk, rater=rater)
    values = [
        {"criterion": "quality", "position": 0, "value": 50},
        {"criterion": "quality", "position": 1, "value": value},
    ]

    with pytest.raises(ValidationError) as caught:
        judgment_submit(rater=rater, assignment_id=a.pk, values=values)

    assert caught.value.message_dict["values"] == [f"values[1] (criterion 'quality', position 1): value {message}"]
    assert not Judgment.objects.exists()


def test_only_the_assigned_rater_may_judge(likert):
    project, rater, assignment = likert
    (other,) = add_raters(project, prefix="other")

    with pytest.raises(NotYourAssignment, match="another rater"):
        judgment_submit(rater=other, assignment_id=assignment.pk, values=full_values(assignment))


def test_no_judgment_after_the_lease_ran_out(likert):
    project, rater, assignment = likert
    later = assignment.expires_at + timedelta(seconds=1)

    with pytest.raises(LeaseGone, match="ran out"):
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment), now=later)
    assert not Judgment.objects.exists()


def test_a_done_item_may_be_revised_after_its_lease_time(likert):
    project, rater, assignment = likert
    judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment))

    result = judgment_submit(
        rater=rater,
        assignment_id=assignment.pk,
        values=full_values(assignment, value=1),
        now=timezone.now() + timedelta(days=1),
    )

    assert result.revision


def test_a_paused_rater_cannot_submit(likert):
    project, rater, assignment = likert
    project.memberships.filter(user=rater).update(is_paused=True)

    with pytest.raises(RaterPaused):
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment))
