"""Training phase: a rater's first screens are items of the training pool answered with feedback (expected
answer and the guideline's explanation), counted in no accuracy or rule; afterwards gold is never shown."""

import random

import pytest

from annotation.models import Membership, RaterAction
from annotation.selectors.quality import gold_accuracy
from annotation.services import assignment_next_for_rater, judgment_submit, qc_rules_update
from tests.annotation.factories import ItemFactory
from tests.annotation.rating import add_raters, full_values, rating_project
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

WHY = "Fluency ignores content: a fluent but wrong sentence still gets a 5."


def training_project(task_type="likert", training_items=2, n_gold=3, n_check=0):
    """``n_gold`` items of the training pool, ``n_check`` gold items for checking."""
    project = rating_project(task_type=task_type, n_items=4, training_items=training_items)
    systems = ["sysA", "sysB"] if task_type == "pairwise" else ["sysA"]
    gold = {"fluency": "sysB"} if task_type == "pairwise" else {"fluency": {"sysA": 5}}
    for k in range(n_gold + n_check):
        ItemFactory(
            project=project, n_target=0, gold=gold, systems=systems, meta={"explanation": WHY}, training=k < n_gold
        )
    return project


def test_the_first_screens_are_gold_with_feedback_then_real_work():
    project = training_project()
    (rater,) = add_raters(project)
    rng = random.Random(0)
    for k in range(2):
        assignment = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=rng)
        assert assignment.item.pk in set(project.items.filter(gold__isnull=False).values_list("id", flat=True))
        result = judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, 2))
        assert result.feedback == {
            "expected": [{"criterion": "fluency", "position": 0, "value": 5}],
            "explanation": WHY,
        }
        assert Membership.objects.get(user=rater).training_done == k + 1
    assignment = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=rng)
    assert project.items.get(pk=assignment.item_id).gold is None
    assert judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment)).feedback is None


def test_training_answers_count_in_no_accuracy_and_fire_no_rule():
    project = training_project(n_gold=2, n_check=1)
    qc_rules_update(project=project, min_gold_answered=1, gold_accuracy_threshold=0.9, action="pause")
    (rater,) = add_raters(project)
    project.gold_rate = 0.9
    project.save()
    rng = random.Random(1)
    for _ in range(2):  # training, answered wrongly
        assignment = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=rng)
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, 1))
    assert not RaterAction.objects.exists() and gold_accuracy(project) == {}
    while True:  # the third gold item, after training, answered rightly
        assignment = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=rng)
        is_gold = project.items.get(pk=assignment.item_id).gold is not None
        result = judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, 5))
        if is_gold:
            break
    assert result.feedback is None  # gold after training is never shown
    acc = gold_accuracy(project)[rater.pk]
    assert (acc.n_items, acc.accuracy) == (1, 1.0) and not RaterAction.objects.exists()


def test_pairwise_feedback_names_the_side_the_expected_winner_was_shown_on():
    project = training_project("pairwise", training_items=1)
    (rater,) = add_raters(project)
    assignment = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=random.Random(2))
    shown = [["sysA", "sysB"][p] for p in assignment.shown_order]
    result = judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, "A"))
    expected = "A" if shown[0] == "sysB" else "B"
    assert result.feedback["expected"] == [{"criterion": "fluency", "position": None, "value": expected}]


def test_the_api_returns_feedback_on_training_screens_only():
    project = training_project(training_items=1)
    (rater,) = add_raters(project)
    client = client_for(rater)
    for k in range(2):
        screen = client.post(f"/api/v1/projects/{project.pk}/next/").json()
        body = client.post(
            f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
            {"values": [{"criterion": "fluency", "position": 0, "value": 4}]},
            format="json",
        ).json()
        assert ("feedback" in body) == (k == 0)
    assert "fluency" not in str(body.get("feedback", ""))


def test_projects_take_training_items_through_the_api(staff):
    response = client_for(staff).post(
        "/api/v1/projects/",
        {
            "name": "p",
            "task_type": "likert",
            "criteria": [{"name": "fluency", "scale_min": 1, "scale_max": 5}],
            "training_items": 3,
        },
        format="json",
    )
    assert response.status_code == 201 and response.json()["training_items"] == 3
    bad = client_for(staff).post(
        "/api/v1/projects/",
        {
            "name": "p",
            "task_type": "likert",
            "criteria": [{"name": "fluency", "scale_min": 1, "scale_max": 5}],
            "training_items": -1,
        },
        format="json",
    )
    assert bad.status_code == 400 and "training_items" in bad.json()


def test_the_rater_page_shows_the_feedback_and_the_explanation(client):
    project = training_project(training_items=1)
    (rater,) = add_raters(project)
    client.force_login(rater)
    client.get(f"/projects/{project.pk}/instructions/")
    client.get(f"/projects/{project.pk}/rate/", follow=True)
    assignment = rater.assignments.get()
    criterion = project.criteria.get()
    page = client.post(f"/assignments/{assignment.pk}/submit/", {f"v-{criterion.pk}-0": "3"})
    text = page.content.decode()
    assert page.status_code == 200 and 'data-testid="training-feedback"' in text
    assert "✗ not what we expected" in text and WHY in text and ">5<" in text and ">3<" in text
    assert f'href="/projects/{project.pk}/rate/"' in text
