"""The staffing API: invites listed, created and revoked, the team listed; leads only."""

import pytest

from audit.models import AuditEntry
from staffing.models import Invite
from tests.conftest import client_for


@pytest.mark.django_db
def test_a_lead_creates_lists_and_revokes_invites(project, lead_client):
    response = lead_client.post(
        f"/api/v1/projects/{project.pk}/invites/", {"max_uses": 3, "valid_days": 2}, format="json"
    )
    assert response.status_code == 201
    created = response.json()
    assert created["max_uses"] == 3 and created["n_used"] == 0 and created["state"] == "open"
    invite = Invite.objects.get()
    assert created["url"].endswith(f"/invite/{invite.token}/")
    listed = lead_client.get(f"/api/v1/projects/{project.pk}/invites/").json()
    assert [row["id"] for row in listed["results"]] == [invite.pk]
    revoked = lead_client.post(f"/api/v1/projects/{project.pk}/invites/{invite.pk}/revoke/").json()
    assert revoked["state"] == "revoked" and revoked["revoked_at"]
    assert [e.action for e in AuditEntry.objects.order_by("id")] == ["invite.create", "invite.revoke"]


@pytest.mark.django_db
def test_bad_invite_settings_are_400_by_field(project, lead_client):
    response = lead_client.post(
        f"/api/v1/projects/{project.pk}/invites/", {"max_uses": 0, "valid_days": 500}, format="json"
    )
    assert response.status_code == 400 and set(response.json()) == {"max_uses", "valid_days"}
    assert not Invite.objects.exists()


@pytest.mark.django_db
def test_an_invite_of_another_project_cannot_be_revoked_through_this_one(project, lead, lead_client):
    from staffing.services import invite_create
    from tests.annotation.factories import MembershipFactory, ProjectFactory

    other = ProjectFactory(name="other")
    MembershipFactory(project=other, user=lead, role="lead")
    invite = invite_create(project=other, by=lead, max_uses=1, valid_days=1)
    assert lead_client.post(f"/api/v1/projects/{project.pk}/invites/{invite.pk}/revoke/").status_code == 404
    invite.refresh_from_db()
    assert invite.revoked_at is None


@pytest.mark.django_db
def test_the_team_is_for_leads_only(project, lead_client, rater):
    team = lead_client.get(f"/api/v1/projects/{project.pk}/team/").json()["results"]
    assert {(m["username"], m["role"]) for m in team} == {("lead", "lead"), ("rater", "rater")}
    assert client_for(rater).get(f"/api/v1/projects/{project.pk}/team/").status_code == 403
    assert client_for(rater).get(f"/api/v1/projects/{project.pk}/invites/").status_code == 403


@pytest.mark.django_db
def test_the_invite_list_costs_the_same_queries_for_1_or_10_invites(project, lead, lead_client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from staffing.services import invite_create

    def count():
        with CaptureQueriesContext(connection) as ctx:
            assert lead_client.get(f"/api/v1/projects/{project.pk}/invites/").status_code == 200
        return len(ctx.captured_queries)

    invite_create(project=project, by=lead, max_uses=1, valid_days=1)
    one = count()
    for _ in range(9):
        invite_create(project=project, by=lead, max_uses=1, valid_days=1)
    assert count() == one
