"""The team page (pause, resume, remove) and the bulk-accounts page (errors or a credentials CSV), and the
password change bulk-created accounts must make first."""

import csv
import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.authtoken.models import Token

from annotation.models import Membership
from audit.models import AuditEntry
from staffing.models import PasswordChangeRequired
from tests.annotation.factories import UserFactory

GOOD_PASSWORD = "correct horse battery 42"


def _lead_client(lead) -> Client:
    client = Client()
    client.force_login(lead)
    return client


@pytest.mark.django_db
def test_the_team_page_lists_members_and_is_linked_from_the_project(project, lead, rater):
    client = _lead_client(lead)
    assert f"/projects/{project.pk}/team/" in client.get(f"/projects/{project.pk}/").content.decode()
    page = client.get(f"/projects/{project.pk}/team/").content.decode()
    assert 'data-member="rater"' in page and 'data-member="lead"' in page
    for path in ("invites", "accounts", "external"):
        assert f"/projects/{project.pk}/{path}/" in page


@pytest.mark.django_db
def test_pause_resume_and_remove_from_the_team_page(project, lead, rater):
    client = _lead_client(lead)
    url = f"/projects/{project.pk}/team/action/"
    assert client.post(url, {"rater": rater.pk, "action": "pause", "reason": ""}).status_code == 400
    assert client.post(url, {"rater": rater.pk, "action": "pause", "reason": "too fast"}).status_code == 302
    assert Membership.objects.get(user=rater).is_paused
    assert client.post(url, {"rater": rater.pk, "action": "resume", "reason": "ok"}).status_code == 302
    assert not Membership.objects.get(user=rater).is_paused
    assert client.post(url, {"rater": lead.pk, "action": "remove"}).status_code == 400
    assert client.post(url, {"rater": rater.pk, "action": "fire"}).status_code == 400
    assert client.post(url, {"rater": rater.pk, "action": "remove"}).status_code == 302
    assert not Membership.objects.filter(user=rater).exists()
    assert [e.action for e in AuditEntry.objects.order_by("id")] == ["rater.pause", "rater.resume", "rater.remove"]


@pytest.mark.django_db
def test_bulk_upload_returns_the_credentials_csv_once(project, lead):
    upload = SimpleUploadedFile("raters.csv", b"username,email\nann,ann@example.org\nbob,\n", "text/csv")
    response = _lead_client(lead).post(f"/projects/{project.pk}/accounts/", {"file": upload})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"] and response["Cache-Control"] == "no-store"
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["username"], r["email"]) for r in rows] == [("ann", "ann@example.org"), ("bob", "")]
    for row in rows:
        user = get_user_model().objects.get(username=row["username"])
        assert user.check_password(row["password"]) and row["login_url"].endswith("/accounts/login/")
        assert Membership.objects.get(user=user).project == project


@pytest.mark.django_db
def test_bulk_upload_errors_are_shown_by_line_and_nothing_is_stored(project, lead):
    upload = SimpleUploadedFile("raters.csv", b"username\nann\nann\nbad name!\n", "text/csv")
    n_users = get_user_model().objects.count()
    response = _lead_client(lead).post(f"/projects/{project.pk}/accounts/", {"file": upload})
    assert response.status_code == 400
    text = response.content.decode()
    assert "No account was created" in text and "<td>3</td>" in text and "<td>4</td>" in text
    assert get_user_model().objects.count() == n_users


@pytest.mark.django_db
def test_a_bulk_account_must_change_its_password_first(project, lead):
    upload = SimpleUploadedFile("raters.csv", b"username\ncarla\n", "text/csv")
    row = next(
        csv.DictReader(
            io.StringIO(_lead_client(lead).post(f"/projects/{project.pk}/accounts/", {"file": upload}).content.decode())
        )
    )
    client = Client()
    assert client.post("/accounts/login/", {"username": "carla", "password": row["password"]}).status_code == 302
    response = client.get(f"/projects/{project.pk}/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/password/")
    response = client.post(
        f"/accounts/password/?next=/projects/{project.pk}/",
        {"old_password": row["password"], "new_password1": GOOD_PASSWORD, "new_password2": GOOD_PASSWORD},
    )
    assert response.status_code == 302 and response["Location"] == f"/projects/{project.pk}/"
    assert not PasswordChangeRequired.objects.exists()
    assert client.get(f"/projects/{project.pk}/").status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("as_json", [True, False])
def test_the_api_gives_a_one_time_password_no_token_until_it_is_changed(project, lead, as_json):
    upload = SimpleUploadedFile("raters.csv", b"username\ndora\n", "text/csv")
    row = next(
        csv.DictReader(
            io.StringIO(_lead_client(lead).post(f"/projects/{project.pk}/accounts/", {"file": upload}).content.decode())
        )
    )
    client = Client()

    def token(password):
        credentials = {"username": "dora", "password": password}
        if as_json:
            return client.post("/api/v1/auth/token/", json.dumps(credentials), content_type="application/json")
        return client.post("/api/v1/auth/token/", credentials)

    refused = token(row["password"])
    assert refused.status_code == 403 and "one-time password" in refused.json()["detail"]
    assert token("not her password").status_code == 400  # wrong credentials: the endpoint's own answer
    client.post("/accounts/login/", {"username": "dora", "password": row["password"]})
    client.post(
        "/accounts/password/",
        {"old_password": row["password"], "new_password1": GOOD_PASSWORD, "new_password2": GOOD_PASSWORD},
    )
    client.logout()
    assert token(GOOD_PASSWORD).status_code == 200 and token(GOOD_PASSWORD).json()["token"]


@pytest.mark.django_db
def test_the_token_endpoint_itself_refuses_a_one_time_password(project, lead, settings):
    """Not the middleware: the refusal holds with it gone (it guards sessions only)."""
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if not m.startswith("staffing.")]
    upload = SimpleUploadedFile("raters.csv", b"username\nerin\n", "text/csv")
    row = next(
        csv.DictReader(
            io.StringIO(_lead_client(lead).post(f"/projects/{project.pk}/accounts/", {"file": upload}).content.decode())
        )
    )
    refused = Client().post("/api/v1/auth/token/", {"username": "erin", "password": row["password"]})
    assert refused.status_code == 403
    assert refused.json() == {
        "detail": "This account still has its one-time password: log in on the web page and "
        "choose a new password first."
    }
    assert not Token.objects.exists()


@pytest.mark.django_db
def test_other_users_are_not_sent_to_the_password_change(project, lead):
    client = Client()
    client.force_login(UserFactory(username="plain"))
    assert client.get("/").status_code == 200
