"""Issue 14, point 8: a bulk account that never changed its one-time password cannot rate, whichever way
it comes in: the pages, the session-authenticated API (with or without a non-token Authorization header),
or a token."""

import csv
import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotation.models import Assignment, Judgment, Membership
from annotation.services import assignment_next_for_rater
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import rating_project

NEW_PASSWORD = "correct horse battery 42"


@pytest.fixture
def bulk_account():
    """A project with items and a bulk-created account (username, one-time password) in it."""
    project = rating_project(n_items=3)
    lead = UserFactory(username="bulk-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    client = Client()
    client.force_login(lead)
    upload = SimpleUploadedFile("raters.csv", b"username\nfrank\n", "text/csv")
    row = next(
        csv.DictReader(io.StringIO(client.post(f"/projects/{project.pk}/accounts/", {"file": upload}).content.decode()))
    )
    return project, row["username"], row["password"]


def _logged_in(username, password) -> Client:
    client = Client()
    assert client.post("/accounts/login/", {"username": username, "password": password}).status_code == 302
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("header", [None, "Bearer anything", "Basic ZnJhbms6eA=="])
def test_the_session_api_refuses_to_serve_or_take_judgments(bulk_account, header):
    project, username, password = bulk_account
    client = _logged_in(username, password)
    extra = {"HTTP_AUTHORIZATION": header} if header else {}

    # When: the rater skips the password change and asks the API for work
    response = client.post(f"/api/v1/projects/{project.pk}/next/", **extra)

    # Then: refused, naming the reason and where to go, and nothing was leased
    assert response.status_code == 403
    assert "one-time password" in response.json()["detail"]
    assert response.json()["password_change_url"] == "/accounts/password/"
    assert not Assignment.objects.exists()
    assert client.get(f"/api/v1/projects/{project.pk}/progress/", **extra).status_code == 403


@pytest.mark.django_db
def test_a_lease_taken_elsewhere_cannot_be_judged_through_the_session_api(bulk_account):
    project, username, password = bulk_account
    client = _logged_in(username, password)
    rater = Membership.objects.get(project=project, role="rater").user
    assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
    criterion = project.criteria.get()
    body = {"values": [{"criterion": criterion.name, "position": 0, "value": 3}]}
    response = client.post(
        f"/api/v1/assignments/{assignment.pk}/judgment/", json.dumps(body), content_type="application/json"
    )
    assert response.status_code == 403 and not Judgment.objects.exists()


@pytest.mark.django_db
def test_pages_and_the_token_endpoint_refuse_too_and_the_change_opens_every_way(bulk_account):
    project, username, password = bulk_account
    client = _logged_in(username, password)
    assert client.get(f"/projects/{project.pk}/rate/")["Location"].startswith("/accounts/password/")
    token = Client().post("/api/v1/auth/token/", {"username": username, "password": password})
    assert token.status_code == 403

    client.post(
        "/accounts/password/", {"old_password": password, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )

    assert client.post(f"/api/v1/projects/{project.pk}/next/").status_code == 200
    key = Client().post("/api/v1/auth/token/", {"username": username, "password": NEW_PASSWORD}).json()["token"]
    assert (
        Client().get(f"/api/v1/projects/{project.pk}/progress/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 200
    )
