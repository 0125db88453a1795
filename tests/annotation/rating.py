"""Helpers for rater-loop tests: a project with items and raters, and the values of a full screen."""

import random

from annotation.models import Membership
from annotation.selectors import assignment_screen
from tests.annotation.factories import ItemFactory, MembershipFactory, ProjectFactory, UserFactory


def rating_project(
    *, task_type="likert", n_items=3, n_target=1, criteria=None, systems=None, n_gold=0, **project_fields
):
    project = ProjectFactory(task_type=task_type, criteria=criteria or ["fluency"], **project_fields)
    for _ in range(n_items):
        ItemFactory(project=project, n_target=n_target, systems=systems)
    for _ in range(n_gold):
        ItemFactory(project=project, n_target=0, gold={"fluency": 3}, systems=systems)
    return project


def add_raters(project, n=1, prefix="rater"):
    users = [UserFactory(username=f"{prefix}{project.pk}-{i}") for i in range(n)]
    for user in users:
        MembershipFactory(project=project, user=user, role=Membership.Role.RATER)
    return users


def full_values(assignment, value=None) -> list[dict]:
    """An answer for every criterion × displayed output (per criterion for pairwise)."""
    screen = assignment_screen(assignment)
    values = []
    for criterion in screen["criteria"]:
        if assignment.project.task_type == "pairwise":
            values.append({"criterion": criterion["name"], "value": value or "A"})
            continue
        default = value if value is not None else (3 if criterion["choices"] else 50.0)
        values += [
            {"criterion": criterion["name"], "position": o["position"], "value": default}
            for o in screen["item"]["outputs"]
        ]
    return values


class ControlsFirst(random.Random):
    """An rng drawing under every rate: the loop serves a gold item (or a repeat) whenever it may."""

    def random(self):
        return 0.0
