"""Error pages look like the site (templates/base.html), say what happened and link back; under /api/ the
same errors are JSON. /favicon.ico answers with an icon."""

import pytest
from django.test import Client

from annotation.models import Membership
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def assert_site_page(response, status: int, *phrases: str):
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert 'href="/static/css/concord.css"' in page and 'class="topbar"' in page, "not in the site's layout"
    assert f"Error {status}" in page and 'role="alert"' in page
    assert 'class="button" href="/' in page, "no link back"
    for phrase in phrases:
        assert phrase in page, phrase


def test_404_page():
    response = Client().get("/no-such-page/")
    assert_site_page(response, 404, "Page not found", "<code>/no-such-page/</code>", "Back to your projects")


def test_404_page_for_a_signed_in_user_keeps_the_top_bar():
    client = Client()
    client.force_login(UserFactory(username="ana"))
    response = client.get("/projects/999999/progress/")
    assert_site_page(response, 404, "Page not found", "ana", "Log out")


def test_403_page_says_why():
    lead, rater = UserFactory(username="lead"), UserFactory(username="rater")
    project = ProjectFactory(name="study")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    MembershipFactory(project=project, user=rater, role=Membership.Role.RATER)
    client = Client()
    client.force_login(rater)
    response = client.get(f"/projects/{project.pk}/progress/")
    assert_site_page(response, 403, "You may not open this page", "Only the project&#x27;s leads may do this.")


def test_csrf_failure_page():
    UserFactory(username="rater", password="pass-word-1234")
    response = Client(enforce_csrf_checks=True).post(
        "/accounts/login/", {"username": "rater", "password": "pass-word-1234"}
    )
    assert_site_page(response, 403, "The form could not be accepted", "CSRF", "Nothing was saved")


def test_400_page_for_a_host_not_served():
    response = Client(HTTP_HOST="evil.example.com").get("/accounts/login/")
    assert_site_page(response, 400, "Bad request")


@pytest.mark.urls("tests.config.failing_urls")
def test_500_page():
    response = Client(raise_request_exception=False).get("/boom/")
    assert_site_page(response, 500, "Something went wrong on our side", "safe to try again")


@pytest.mark.urls("tests.config.failing_urls")
def test_api_errors_stay_json():
    client = Client(raise_request_exception=False)
    failed = client.get("/api/v1/boom/")
    assert (failed.status_code, failed.json()) == (500, {"detail": "Server error; it has been logged."})
    missing = client.get("/api/v1/no-such-endpoint/")
    assert (missing.status_code, missing.json()) == (404, {"detail": "Not found."})
    assert Client(HTTP_HOST="evil.example.com").get("/api/v1/projects/").json() == {"detail": "Bad request."}
    # DRF's own answers are untouched.
    assert Client().get("/api/v1/projects/").json()["detail"].startswith("Authentication credentials")


def test_favicon_answers_with_an_icon():
    response = Client().get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/x-icon"
    assert b"".join(response.streaming_content).startswith(b"\x00\x00\x01\x00")  # the ICO signature


def test_csrf_failure_page_with_the_cookie_but_a_stale_token():
    UserFactory(username="rater", password="pass-word-1234")
    client = Client(enforce_csrf_checks=True)
    client.get("/accounts/login/")  # sets the cookie
    response = client.post(
        "/accounts/login/", {"username": "rater", "password": "pass-word-1234", "csrfmiddlewaretoken": "stale" * 7}
    )
    assert_site_page(response, 403, "without a valid security token (CSRF check)")
