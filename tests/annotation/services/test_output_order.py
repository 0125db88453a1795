"""The project's order setting: Likert and RankME outputs are shuffled per assignment unless the lead
turned it off; pairwise keeps balancing sides either way."""

import random

import pytest

from annotation.services import assignment_next_for_rater
from tests.annotation.rating import add_raters, rating_project

pytestmark = pytest.mark.django_db


def _orders(project, n_raters=12, seed=7):
    rng = random.Random(seed)
    return [
        tuple(assignment_next_for_rater(project_id=project.pk, rater=rater, rng=rng).shown_order)
        for rater in add_raters(project, n_raters)
    ]


@pytest.mark.parametrize("task_type", ["likert", "rankme"])
def test_outputs_keep_the_imported_order_when_randomisation_is_off(task_type):
    project = rating_project(
        task_type=task_type, n_items=1, n_target=12, systems=["s1", "s2", "s3"], randomise_output_order=False
    )
    assert set(_orders(project)) == {(0, 1, 2)}


@pytest.mark.parametrize("task_type", ["likert", "rankme"])
def test_outputs_are_shuffled_per_assignment_by_default(task_type):
    project = rating_project(task_type=task_type, n_items=1, n_target=12, systems=["s1", "s2", "s3"])
    assert len(set(_orders(project))) > 1


def test_pairwise_sides_are_still_drawn_when_randomisation_is_off():
    project = rating_project(
        task_type="pairwise", n_items=1, n_target=12, systems=["s1", "s2"], randomise_output_order=False
    )
    assert set(_orders(project)) == {(0, 1), (1, 0)}


def test_the_api_creates_projects_with_the_setting_and_reports_it(staff):
    from tests.conftest import client_for

    body = {"name": "p", "task_type": "likert", "criteria": [{"name": "f", "scale_min": 1, "scale_max": 5}]}
    created = client_for(staff).post("/api/v1/projects/", body, format="json").json()
    assert created["randomise_output_order"] is True and created["status"] == "live"
    body.update(name="p2", randomise_output_order=False)
    assert client_for(staff).post("/api/v1/projects/", body, format="json").json()["randomise_output_order"] is False
