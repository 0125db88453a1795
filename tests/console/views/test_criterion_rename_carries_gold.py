"""Issue 14, point 7: renaming a criterion on the settings page after gold items exist carries the gold
with it, so gold checks and training feedback go on for the renamed criterion (a careless lead cannot
switch gold off by a rename)."""

import pytest
from django.test import Client

from annotation.models import Assignment, Item, Membership
from audit.models import AuditEntry
from tests.annotation.factories import ItemFactory, MembershipFactory, UserFactory
from tests.annotation.rating import add_raters, rating_project
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def _settings_post(project, renames: dict[str, str]) -> dict:
    """The settings form as the page fills it in for ``project``, with criteria renamed."""
    criteria = list(project.criteria.all())
    data = {
        "name": project.name,
        "task_type": project.task_type,
        "instructions": project.instructions,
        "raters_per_item": str(project.raters_per_item),
        "double_annotation_share": f"{project.double_annotation_share * 100:g}",
        "gold_rate": f"{project.gold_rate * 100:g}",
        "lease_minutes": f"{project.lease_seconds / 60:g}",
        "randomise_output_order": "on",
        "action": "save",
        "criteria-TOTAL_FORMS": str(len(criteria)),
        "criteria-INITIAL_FORMS": str(len(criteria)),
        "criteria-MIN_NUM_FORMS": "0",
        "criteria-MAX_NUM_FORMS": "1000",
    }
    for n, c in enumerate(criteria):
        data.update(
            {
                f"criteria-{n}-id": str(c.pk),
                f"criteria-{n}-name": renames.get(c.name, c.name),
                f"criteria-{n}-scale_min": f"{c.scale_min:g}",
                f"criteria-{n}-scale_max": f"{c.scale_max:g}",
                f"criteria-{n}-labels": "\n".join(c.labels),
                f"criteria-{n}-ORDER": str(n + 1),
            }
        )
    return data


def _lead(project) -> Client:
    lead = UserFactory(username=f"lead-{project.pk}")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    client = Client()
    client.force_login(lead)
    return client


def _answer(api, assignment_id: int, screen: dict, value: int):
    values = [
        {"criterion": c["name"], "position": o["position"], "value": value}
        for c in screen["criteria"]
        for o in screen["item"]["outputs"]
    ]
    response = api.post(f"/api/v1/assignments/{assignment_id}/judgment/", {"values": values}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def study():
    """Six work items, three gold items (fluency 3, with an explanation; one in the training pool), one training
    screen, gold often."""
    project = rating_project(n_items=6, n_gold=3, training_items=1, gold_rate=0.9)
    golds = Item.objects.filter(project=project, gold__isnull=False)
    golds.update(meta={"explanation": "Readable, not fluent."})
    Item.objects.filter(pk=golds.order_by("pk").first().pk).update(training=True)  # the training pool
    return project


def test_after_a_rename_gold_checks_count_and_training_feedback_shows_the_answer(study):
    project = study
    lead = _lead(project)
    first, second = add_raters(project, 2)
    api = client_for(first)

    # Given: the first rater has done their training screen on the old name
    screen = api.post(f"/api/v1/projects/{project.pk}/next/").json()
    assert _answer(api, screen["assignment_id"], screen, 3)["feedback"]["expected"][0]["criterion"] == "fluency"

    # When: the lead renames the criterion on the settings page
    response = lead.post(f"/projects/{project.pk}/settings/", _settings_post(project, {"fluency": "readability"}))
    assert response.status_code == 302

    # Then: the rater's gold screens, answered right on the new name, count as right gold answers
    for _ in range(20):
        response = api.post(f"/api/v1/projects/{project.pk}/next/")
        if response.status_code == 204:
            break
        screen = response.json()
        assert [c["name"] for c in screen["criteria"]] == ["readability"]
        _answer(api, screen["assignment_id"], screen, 3)
    served_gold = Assignment.objects.filter(rater=first, item__gold__isnull=False).count()
    assert served_gold >= 2  # the training screen and at least one gold check
    report = lead.get(f"/api/v1/projects/{project.pk}/qc/raters/").json()
    gold = next(r["gold"] for r in report["raters"] if r["username"] == first.username)
    assert gold["n_items"] == served_gold - 1 and gold["accuracy"] == 1.0

    # And: a rater trained after the rename sees the expected answer on the feedback page
    page = Client()
    page.force_login(second)
    page.get(f"/projects/{project.pk}/instructions/")
    page.get(f"/projects/{project.pk}/rate/")
    assignment = Assignment.objects.get(rater=second, status="active")
    assert assignment.item.gold is not None
    feedback = page.post(f"/assignments/{assignment.pk}/submit/", {f"v-{project.criteria.get().pk}-0": "2"})
    body = feedback.content.decode()
    assert feedback.status_code == 200 and "Readable, not fluent." in body
    assert "<td>readability</td>" in body and "<td>3</td><td>2</td>" in body  # expected 3, given 2
    entry = AuditEntry.objects.filter(project=project, action="project.update").latest("id")
    assert entry.detail["criteria"]["renamed"] == {"fluency": "readability"}


def test_two_criteria_swapping_names_swap_their_gold(db):
    project = rating_project(n_items=1, criteria=["fluency", "coherence"])
    gold = ItemFactory(project=project, n_target=0, gold={"fluency": 5, "coherence": 1})
    response = _lead(project).post(
        f"/projects/{project.pk}/settings/", _settings_post(project, {"fluency": "coherence", "coherence": "fluency"})
    )
    assert response.status_code == 302
    gold.refresh_from_db()
    assert gold.gold == {"coherence": 5, "fluency": 1}
