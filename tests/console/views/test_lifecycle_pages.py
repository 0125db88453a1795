"""The lifecycle buttons and the clone page, and what raters see of a project in each state."""

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from annotation.models import Membership, Project
from audit.models import AuditEntry
from tests.annotation.factories import ItemFactory, MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_the_project_page_offers_the_moves_of_its_status(client, lead, project):
    client.force_login(lead)
    page = client.get(f"/projects/{project.pk}/").content.decode()
    assert 'data-status="paused"' in page and 'data-status="closed"' in page and 'data-status="live"' not in page
    project.status = "draft"
    project.save()
    page = client.get(f"/projects/{project.pk}/").content.decode()
    assert 'data-status="live"' in page and 'data-status="paused"' not in page
    assert "Raters cannot see a draft." in page


def test_a_lead_pauses_resumes_and_closes_and_a_refusal_is_shown(client, lead, project):
    client.force_login(lead)
    for status in ("paused", "live", "closed"):
        response = client.post(f"/projects/{project.pk}/status/", {"status": status})
        assert response.status_code == 302
    project.refresh_from_db()
    assert project.status == "closed"
    page = client.post(f"/projects/{project.pk}/status/", {"status": "live"}, follow=True).content.decode()
    assert "A closed project is final; clone it for a new round." in page
    assert Project.objects.get(pk=project.pk).status == "closed"
    assert AuditEntry.objects.filter(project=project).count() == 3


def test_status_changes_need_a_lead_and_a_csrf_token(client, rater, lead, project):
    client.force_login(rater)
    assert client.post(f"/projects/{project.pk}/status/", {"status": "paused"}).status_code == 403
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(lead)
    assert csrf_client.post(f"/projects/{project.pk}/status/", {"status": "paused"}).status_code == 403
    assert Project.objects.get(pk=project.pk).status == "live"


def test_a_rater_does_not_see_a_draft_anywhere(client, rater, project):
    ItemFactory(project=project)
    project.status = "draft"
    project.save()
    client.force_login(rater)
    assert project.name.encode() not in client.get("/").content
    for path in (f"/projects/{project.pk}/", f"/projects/{project.pk}/instructions/", f"/projects/{project.pk}/rate/"):
        session = client.session
        session[f"seen-instructions-{project.pk}"] = True
        session.save()
        assert client.get(path).status_code == 404, path


def test_a_rater_of_a_paused_project_sees_why_nothing_is_served(client, rater, project):
    ItemFactory(project=project)
    project.status = "paused"
    project.save()
    client.force_login(rater)
    session = client.session
    session[f"seen-instructions-{project.pk}"] = True
    session.save()
    response = client.get(f"/projects/{project.pk}/rate/")
    assert response.status_code == 409
    assert "This project is paused" in response.content.decode()


@pytest.fixture
def creator_lead(lead):
    lead.user_permissions.add(Permission.objects.get(codename="add_project"))
    return lead


def test_a_lead_who_may_create_projects_clones_one_with_its_items(client, creator_lead, project):
    ItemFactory(project=project, external_id="x1")
    client.force_login(creator_lead)
    page = client.get(f"/projects/{project.pk}/clone/").content.decode()
    assert f'value="{project.name} (round 2)"' in page
    response = client.post(f"/projects/{project.pk}/clone/", {"name": "round 2", "with_items": "on"})
    clone = Project.objects.get(name="round 2")
    assert response.status_code == 302 and response["Location"] == f"/projects/{clone.pk}/"
    assert clone.status == "draft" and list(clone.items.values_list("external_id", flat=True)) == ["x1"]
    assert clone.memberships.get().role == Membership.Role.LEAD


def test_a_clone_without_a_name_is_refused_beside_the_field(client, creator_lead, project):
    client.force_login(creator_lead)
    response = client.post(f"/projects/{project.pk}/clone/", {"name": " "})
    assert response.status_code == 400
    assert 'id="name-error"' in response.content.decode() and Project.objects.count() == 1


def test_cloning_needs_the_right_to_create_projects(client, lead, project):
    client.force_login(lead)
    assert client.get(f"/projects/{project.pk}/clone/").status_code == 403
    assert b"Clone for a new round" not in client.get(f"/projects/{project.pk}/").content


def test_a_lead_of_another_project_cannot_touch_this_one(client, project):
    other_lead = UserFactory(username="other-lead", is_staff=False)
    MembershipFactory(project=ProjectFactory(), user=other_lead, role=Membership.Role.LEAD)
    client.force_login(other_lead)
    for path in (f"/projects/{project.pk}/settings/", f"/projects/{project.pk}/clone/"):
        assert client.get(path).status_code == 404
    assert client.post(f"/projects/{project.pk}/status/", {"status": "paused"}).status_code == 404
    assert client.post(f"/projects/{project.pk}/settings/preview/", {}).status_code == 404
