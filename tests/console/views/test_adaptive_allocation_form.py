"""The allocation page's adaptive allocation form (pairwise projects): saved through the service, errors shown,
absent for a rating project."""

import pytest

from annotation.models import Membership, Project
from audit.models import AuditEntry
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def lead_of(project):
    lead = UserFactory(username=f"adaptive-lead-{project.pk}")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    return lead


def test_the_lead_turns_adaptive_allocation_on_and_off(client):
    project = ProjectFactory(task_type="pairwise", criteria=["overall"])
    client.force_login(lead_of(project))
    url = f"/projects/{project.pk}/allocation/"
    assert b'data-testid="adaptive-form"' in client.get(url).content

    saved = client.post(
        url,
        {
            "action": "adaptive",
            "enabled": "on",
            "target": "top_k",
            "top_k": "3",
            "cold_start": "",
            "floor": "0.3",
            "weighting": "none",
            "min_judgments_per_system": "50",
        },
    )

    assert saved.status_code == 302
    project.refresh_from_db()
    assert project.task_config == {
        "adaptive": {
            "target": "top_k",
            "top_k": 3,
            "cold_start": None,
            "floor": 0.3,
            "refresh_every": 20,
            "weighting": "none",
        },
        "min_judgments_per_system": 50,
    }
    assert AuditEntry.objects.filter(action="task_config.update", project=project).exists()
    bad = client.post(url, {"action": "adaptive", "enabled": "on", "target": "top_k", "top_k": "", "floor": "0.3"})
    assert bad.status_code == 400 and b"top_k" in bad.content
    client.post(url, {"action": "adaptive", "target": "ranking", "floor": "0.3"})
    assert Project.objects.get(pk=project.pk).task_config == {}


def test_a_rating_project_has_no_adaptive_form(client):
    project = ProjectFactory(task_type="likert")
    client.force_login(lead_of(project))
    url = f"/projects/{project.pk}/allocation/"

    assert b'data-testid="adaptive-form"' not in client.get(url).content
    assert (
        client.post(url, {"action": "adaptive", "enabled": "on", "target": "ranking", "floor": "0.3"}).status_code
        == 400
    )


def test_a_best_worst_project_takes_adaptive_allocation_without_a_minimum_per_system(client):
    project = ProjectFactory(
        task_type="bws", criteria=["overall"], task_config={"k": 3, "tuples_per_output": 2, "seed": 1}
    )
    client.force_login(lead_of(project))
    url = f"/projects/{project.pk}/allocation/"
    page = client.get(url).content
    assert b'data-testid="adaptive-form"' in page and b"min_judgments_per_system" not in page

    saved = client.post(
        url, {"action": "adaptive", "enabled": "on", "target": "ranking", "floor": "0.5", "weighting": "none"}
    )

    assert saved.status_code == 302
    project.refresh_from_db()
    assert project.task_config == {
        "k": 3,
        "tuples_per_output": 2.0,
        "seed": 1,
        "adaptive": {
            "target": "ranking",
            "top_k": None,
            "cold_start": None,
            "floor": 0.5,
            "refresh_every": 20,
            "weighting": "none",
        },
    }
