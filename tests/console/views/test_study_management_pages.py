"""Study management through the HTTP API and the pages: an archived project refuses every write with a clear
409 (tokens and sessions alike) and hides its work from raters; deleting takes the admin-level permission and
the typed name; items are retired and re-uploaded in update mode; names are unique per owner."""

import json

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Item, Membership, Project
from annotation.services import assignment_next_for_rater
from console.services import project_archive
from console.services.project_lifecycle import ARCHIVED_READ_ONLY
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.annotation.rating import add_raters, full_values
from tests.conftest import client_for
from tests.console.views.test_wizard_pages import wizard_post

pytestmark = pytest.mark.django_db

LINE = {"external_id": "new", "input": "x", "outputs": [{"system": "bart", "text": "y"}]}


@pytest.fixture
def study(db):
    project = ProjectFactory(name="archived study", criteria=["fluency"])
    ItemFactory(project=project, external_id="doc1", systems=["bart"])
    lead = UserFactory(username="study-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    (rater,) = add_raters(project)
    return project, lead, rater


def _token_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def test_an_archived_project_refuses_every_api_write_with_409_and_keeps_its_reads(study):
    project, lead, _ = study
    project_archive(project=project, actor=lead)
    pk = project.pk
    for client in (_token_client(lead), client_for(lead)):
        writes = [
            client.post(
                f"/api/v1/projects/{pk}/items/import/", json.dumps(LINE) + "\n", content_type="application/x-ndjson"
            ),
            client.post(f"/api/v1/projects/{pk}/members/", {"username": "someone"}, format="json"),
            client.post(f"/api/v1/projects/{pk}/agreement/recompute/", {}, format="json"),
            client.post(f"/api/v1/projects/{pk}/items/retire/", {"external_id": "doc1"}, format="json"),
            client.post(f"/api/v1/projects/{pk}/exports/", {}, format="json"),
            client.put(f"/api/v1/projects/{pk}/qc/rules/", {}, format="json"),
            client.post(f"/api/v1/projects/{pk}/archive/", {}, format="json"),
        ]
        assert [(r.status_code, r.json()) for r in writes] == [(409, {"detail": ARCHIVED_READ_ONLY})] * len(writes)
        assert client.get(f"/api/v1/projects/{pk}/items/").status_code == 200
    assert Item.objects.filter(project=project).count() == 1 and not Item.objects.get().is_retired


def test_restoring_through_the_api_lifts_the_refusal(study):
    project, lead, _ = study
    client = _token_client(lead)
    archived = client.post(f"/api/v1/projects/{project.pk}/archive/", {}, format="json")
    assert archived.status_code == 200 and archived.json()["archived_at"] and archived.json()["status"] == "live"
    restored = client.post(f"/api/v1/projects/{project.pk}/restore/", {}, format="json")
    assert restored.status_code == 200 and restored.json()["archived_at"] is None
    again = client.post(f"/api/v1/projects/{project.pk}/restore/", {}, format="json")
    assert again.status_code == 400 and again.json() == {"archived": ["The project is not archived."]}
    imported = client.post(
        f"/api/v1/projects/{project.pk}/items/import/", json.dumps(LINE) + "\n", content_type="application/x-ndjson"
    )
    assert imported.status_code == 201


def test_outsiders_learn_nothing_of_an_archived_project(study):
    project, _, _ = study
    project_archive(project=project, actor=None)
    response = client_for(UserFactory()).post(
        f"/api/v1/projects/{project.pk}/members/", {"username": "x"}, format="json"
    )
    assert response.status_code == 404 and "archived" not in response.content.decode()


def test_raters_cannot_see_an_archived_projects_work(study):
    project, _, rater = study
    lease = assignment_next_for_rater(project_id=project.pk, rater=rater)
    project_archive(project=project, actor=None)
    api = _token_client(rater)
    nxt = api.post(f"/api/v1/projects/{project.pk}/next/", {}, format="json")
    assert nxt.status_code == 409 and "archived" in nxt.json()["detail"] and "input" not in nxt.json()
    submitted = api.post(f"/api/v1/assignments/{lease.pk}/judgment/", {"values": full_values(lease)}, format="json")
    assert submitted.status_code == 409 and "archived" in submitted.json()["detail"]
    assert api.get("/api/v1/projects/").json()["count"] == 0
    assert api.get(f"/api/v1/projects/{project.pk}/").status_code == 404
    page = Client()
    page.force_login(rater)
    assert page.get(f"/projects/{project.pk}/").status_code == 404
    screen = page.get(f"/assignments/{lease.pk}/", follow=True)
    assert screen.status_code == 404 and lease.item.input not in screen.content.decode()
    assert page.get(f"/projects/{project.pk}/instructions/").status_code == 404
    assert "archived study" not in page.get("/").content.decode()


def test_a_page_form_on_an_archived_project_goes_back_with_the_reason(study, client):
    project, lead, _ = study
    project_archive(project=project, actor=lead)
    client.force_login(lead)
    response = client.post(f"/projects/{project.pk}/status/", {"status": "paused"}, follow=True)
    assert response.redirect_chain == [(f"/projects/{project.pk}/", 302)]
    assert ARCHIVED_READ_ONLY in response.content.decode()
    script = client.post(f"/projects/{project.pk}/items/upload/", {}, HTTP_ACCEPT="application/json")
    assert script.status_code == 409 and script.json() == {"detail": ARCHIVED_READ_ONLY}
    assert Project.objects.get(pk=project.pk).status == Project.Status.LIVE


def test_the_home_list_hides_archived_projects_behind_a_link(study, client):
    project, lead, _ = study
    ProjectFactory(name="kept study")
    MembershipFactory(project=Project.objects.get(name="kept study"), user=lead, role=Membership.Role.LEAD)
    project_archive(project=project, actor=lead)
    client.force_login(lead)
    home = client.get("/").content.decode()
    assert "kept study" in home and "archived study" not in home and "Archived projects (1)" in home
    archived = client.get("/?archived=1").content.decode()
    assert "archived study" in archived and "kept study" not in archived


def _admin():
    user = UserFactory(username="admin-user")
    user.user_permissions.add(Permission.objects.get(codename="delete_project", content_type__app_label="annotation"))
    return user


def test_a_lead_cannot_delete_their_project_but_an_admin_can_with_the_typed_name(study, client):
    project, lead, _ = study
    refused = _token_client(lead).post(
        f"/api/v1/projects/{project.pk}/delete/", {"confirm_name": project.name}, format="json"
    )
    assert refused.status_code == 403 and "admin-level permission" in refused.json()["detail"]
    client.force_login(lead)
    assert client.get(f"/projects/{project.pk}/delete/").status_code == 403
    assert client.post(f"/projects/{project.pk}/delete/", {"confirm_name": project.name}).status_code == 403
    assert "Delete the project" not in client.get(f"/projects/{project.pk}/").content.decode()

    admin = _admin()
    MembershipFactory(project=project, user=admin, role=Membership.Role.LEAD)
    api = _token_client(admin)
    wrong = api.post(f"/api/v1/projects/{project.pk}/delete/", {"confirm_name": "archived"}, format="json")
    assert wrong.status_code == 400 and wrong.json() == {
        "confirm_name": ["Type the project's name, 'archived study', exactly to delete it."]
    }
    project_archive(project=project, actor=admin)  # an archived project may still be deleted
    deleted = api.post(f"/api/v1/projects/{project.pk}/delete/", {"confirm_name": "archived study"}, format="json")
    assert deleted.status_code == 200 and deleted.json() == {"items": 1, "judgments": 0, "members": 3}
    assert not Project.objects.filter(pk=project.pk).exists()


def test_the_delete_page_asks_for_the_name_and_says_what_goes(study, client):
    project, _, _ = study
    JudgmentFactory(item=Item.objects.get(project=project))
    admin = _admin()
    MembershipFactory(project=project, user=admin, role=Membership.Role.LEAD)
    client.force_login(admin)
    page = client.get(f"/projects/{project.pk}/delete/").content.decode()
    assert "1 item," in page and "1 judgment," in page
    wrong = client.post(f"/projects/{project.pk}/delete/", {"confirm_name": "nope"})
    assert wrong.status_code == 400 and "exactly to delete it" in wrong.content.decode()
    done = client.post(f"/projects/{project.pk}/delete/", {"confirm_name": "archived study"}, follow=True)
    assert done.redirect_chain == [("/", 302)] and "Deleted the project" in done.content.decode()


def test_items_are_retired_and_updated_through_the_api(study):
    project, lead, _ = study
    api = _token_client(lead)
    retired = api.post(f"/api/v1/projects/{project.pk}/items/retire/", {"external_id": "doc1"}, format="json")
    assert retired.status_code == 200 and retired.json()["retired_at"]
    listed = api.get(f"/api/v1/projects/{project.pk}/items/").json()["results"]
    assert listed[0]["retired_at"] == retired.json()["retired_at"]
    missing = api.post(f"/api/v1/projects/{project.pk}/items/retire/", {"external_id": "nope"}, format="json")
    assert missing.status_code == 404

    body = json.dumps({**LINE, "external_id": "doc1", "input": "changed"}) + "\n" + json.dumps(LINE) + "\n"
    updated = api.post(
        f"/api/v1/projects/{project.pk}/items/import/?mode=update", body, content_type="application/x-ndjson"
    )
    assert updated.status_code == 200
    assert {k: updated.json()[k] for k in ("added", "updated", "unchanged", "refused")} == {
        "added": 1,
        "updated": 1,
        "unchanged": 0,
        "refused": 0,
    }
    bad = api.post(f"/api/v1/projects/{project.pk}/items/import/?mode=merge", body, content_type="application/x-ndjson")
    assert bad.status_code == 400 and bad.json() == {"mode": "unknown mode 'merge'; use add or update"}


def test_a_judgment_of_a_retired_item_is_marked_in_the_judgment_list(study):
    project, lead, _ = study
    JudgmentFactory(item=Item.objects.get(project=project))
    api = _token_client(lead)
    assert api.get(f"/api/v1/projects/{project.pk}/judgments/").json()["results"][0]["item_retired"] is False
    api.post(f"/api/v1/projects/{project.pk}/items/retire/", {"external_id": "doc1"}, format="json")
    assert api.get(f"/api/v1/projects/{project.pk}/judgments/").json()["results"][0]["item_retired"] is True


def test_a_duplicate_name_is_refused_on_its_field_in_the_api_and_the_wizard(client):
    creator = UserFactory(username="creator")
    creator.user_permissions.add(Permission.objects.get(codename="add_project"))
    body = {
        "name": "Summaries round 1",
        "task_type": "likert",
        "criteria": [{"name": "fluency", "scale_min": 1, "scale_max": 5}],
    }
    api = _token_client(creator)
    assert api.post("/api/v1/projects/", body, format="json").status_code == 201
    again = api.post("/api/v1/projects/", body, format="json")
    assert again.status_code == 400 and again.json() == {
        "name": ["You already have a project named 'Summaries round 1'; choose another name."]
    }
    client.force_login(creator)
    page = client.post("/projects/new/", wizard_post())
    assert page.status_code == 400
    assert "You already have a project named" in page.context["form"].errors["name"][0]
    assert Project.objects.filter(name="Summaries round 1").count() == 1


def test_deleting_through_a_session_needs_the_csrf_token_and_a_token_client_none(study):
    project, _, _ = study
    admin = _admin()
    MembershipFactory(project=project, user=admin, role=Membership.Role.LEAD)
    session = Client(enforce_csrf_checks=True)
    session.force_login(admin)
    for path, kwargs in (
        (f"/projects/{project.pk}/delete/", {}),
        (f"/api/v1/projects/{project.pk}/delete/", {"content_type": "application/json"}),
    ):
        body = {"confirm_name": project.name} if not kwargs else json.dumps({"confirm_name": project.name})
        refused = session.post(path, body, **kwargs)
        assert refused.status_code == 403 and b"CSRF" in refused.content
    assert Project.objects.filter(pk=project.pk).exists()
    token = APIClient(enforce_csrf_checks=True)
    token.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=admin).key}")
    assert (
        token.post(f"/api/v1/projects/{project.pk}/delete/", {"confirm_name": project.name}, format="json").status_code
        == 200
    )
