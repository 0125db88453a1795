"""The invite pages: a lead creates and revokes; a visitor signs up and joins, a member joins; an unusable
invite says why and admits no one."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from annotation.models import Membership
from staffing.models import Invite
from staffing.services import invite_create
from tests.annotation.factories import UserFactory

GOOD_PASSWORD = "correct horse battery 42"


def _client(user=None, **kwargs) -> Client:
    client = Client(**kwargs)
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.django_db
def test_a_lead_creates_a_multi_use_invite_and_sees_its_link(project, lead):
    client = _client(lead)
    response = client.post(f"/projects/{project.pk}/invites/", {"kind": "multi", "max_uses": "4", "valid_days": "2"})
    assert response.status_code == 302
    invite = Invite.objects.get()
    assert invite.max_uses == 4
    assert abs(invite.expires_at - (timezone.now() + timedelta(days=2))) < timedelta(minutes=1)
    page = client.get(f"/projects/{project.pk}/invites/").content.decode()
    assert f"/invite/{invite.token}/" in page and "0 / 4" in page


@pytest.mark.django_db
def test_a_single_use_invite_ignores_the_cap_field(project, lead):
    _client(lead).post(f"/projects/{project.pk}/invites/", {"kind": "single", "max_uses": "9", "valid_days": "1"})
    assert Invite.objects.get().max_uses == 1


@pytest.mark.django_db
def test_bad_invite_form_shows_the_fields_errors(project, lead):
    response = _client(lead).post(
        f"/projects/{project.pk}/invites/", {"kind": "multi", "max_uses": "zero", "valid_days": "-1"}
    )
    assert response.status_code == 400
    text = response.content.decode()
    assert 'id="max_uses_error"' in text and 'id="valid_days_error"' in text
    assert not Invite.objects.exists()


@pytest.mark.django_db
def test_a_lead_revokes_an_invite_and_its_page_says_so(project, lead):
    invite = invite_create(project=project, by=lead, max_uses=3, valid_days=7)
    assert _client(lead).post(f"/projects/{project.pk}/invites/{invite.pk}/revoke/").status_code == 302
    response = Client().get(f"/invite/{invite.token}/")
    assert response.status_code == 410 and "was revoked" in response.content.decode()


@pytest.mark.django_db
def test_a_visitor_signs_up_joins_and_is_sent_to_the_rating_screen(project, lead):
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    client = Client()
    assert "Create an account" in client.get(f"/invite/{invite.token}/").content.decode()
    response = client.post(
        f"/invite/{invite.token}/", {"username": "newcomer", "password": GOOD_PASSWORD, "password_again": GOOD_PASSWORD}
    )
    assert response.status_code == 302 and response["Location"] == f"/projects/{project.pk}/rate/"
    user = get_user_model().objects.get(username="newcomer")
    assert Membership.objects.get(user=user, project=project).role == "rater"
    assert client.get(f"/projects/{project.pk}/rate/").status_code == 302  # logged in: on to the instructions


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("form", "error_id"),
    [
        ({"username": "newcomer", "password": "short", "password_again": "short"}, "password_error"),
        (
            {"username": "newcomer", "password": GOOD_PASSWORD, "password_again": GOOD_PASSWORD + "x"},
            "password_again_error",
        ),
        ({"username": "lead", "password": GOOD_PASSWORD, "password_again": GOOD_PASSWORD}, "username_error"),
    ],
)
def test_signup_errors_are_shown_beside_the_field(project, lead, form, error_id):
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    response = Client().post(f"/invite/{invite.token}/", form)
    assert response.status_code == 400 and f'id="{error_id}"' in response.content.decode()
    assert not get_user_model().objects.filter(username="newcomer").exists()


@pytest.mark.django_db
def test_a_logged_in_user_joins_with_one_click(project, lead):
    invite = invite_create(project=project, by=lead, max_uses=2, valid_days=7)
    user = UserFactory(username="known")
    client = _client(user)
    assert "Join as a rater" in client.get(f"/invite/{invite.token}/").content.decode()
    assert not Membership.objects.filter(user=user).exists()  # opening the page changes nothing
    assert client.post(f"/invite/{invite.token}/").status_code == 302
    assert Membership.objects.get(user=user).role == "rater"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("setup", "status", "words"),
    [("expired", 410, "has expired"), ("revoked", 410, "was revoked"), ("used_up", 410, "is used up")],
)
def test_an_unusable_invite_says_which_and_creates_no_member(project, lead, setup, status, words):
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    if setup == "expired":
        Invite.objects.filter(pk=invite.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    elif setup == "revoked":
        Invite.objects.filter(pk=invite.pk).update(revoked_at=timezone.now())
    else:
        Invite.objects.filter(pk=invite.pk).update(n_used=1)
    n_members, n_users = Membership.objects.count(), get_user_model().objects.count()
    for client, data in (
        (Client(), {"username": "x1", "password": GOOD_PASSWORD, "password_again": GOOD_PASSWORD}),
        (_client(UserFactory(username="known")), {}),
    ):
        n_users = get_user_model().objects.count()
        response = client.post(f"/invite/{invite.token}/", data)
        assert response.status_code == status and words in response.content.decode()
        assert re.search(rf'data-state="{setup}"', response.content.decode())
        assert get_user_model().objects.count() == n_users
    assert Membership.objects.count() == n_members


@pytest.mark.django_db
def test_an_unknown_token_is_404():
    assert Client().get("/invite/not-a-token/").status_code == 404


@pytest.mark.django_db
def test_forms_need_csrf(project, lead):
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    anon = Client(enforce_csrf_checks=True)
    assert (
        anon.post(
            f"/invite/{invite.token}/", {"username": "n", "password": GOOD_PASSWORD, "password_again": GOOD_PASSWORD}
        ).status_code
        == 403
    )
    client = _client(lead, enforce_csrf_checks=True)
    for path in (
        f"/projects/{project.pk}/invites/",
        f"/projects/{project.pk}/invites/{invite.pk}/revoke/",
        f"/projects/{project.pk}/team/action/",
        f"/projects/{project.pk}/accounts/",
        f"/projects/{project.pk}/external/",
    ):
        assert client.post(path, {}).status_code == 403, path
    page = client.get(f"/projects/{project.pk}/invites/").content.decode()
    assert page.count("csrfmiddlewaretoken") >= 2  # the create form and the revoke button
    invite.refresh_from_db()
    assert invite.revoked_at is None and Invite.objects.count() == 1


@pytest.mark.django_db
def test_a_lead_opening_their_own_invite_stays_a_lead_and_uses_nothing(project, lead):
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    client = _client(lead)
    assert "already in this project" in client.get(f"/invite/{invite.token}/").content.decode()
    assert client.post(f"/invite/{invite.token}/")["Location"] == f"/projects/{project.pk}/"
    invite.refresh_from_db()
    assert invite.n_used == 0 and Membership.objects.get(user=lead).role == "lead"


@pytest.mark.django_db
def test_a_visitor_with_an_account_logs_in_and_comes_back_to_join(project, lead):
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    page = Client().get(f"/invite/{invite.token}/").content.decode()
    assert f'href="/accounts/login/?next=/invite/{invite.token}/"' in page
