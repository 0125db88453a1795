"""Invite links: creation, expiry, revocation, the cap (with racing clients on PostgreSQL) and sign-up."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import timezone

from annotation.models import Membership
from audit.models import AuditEntry
from staffing.models import Invite
from staffing.services import InviteUnavailable, invite_accept, invite_create, invite_revoke, invite_signup
from tests.annotation.factories import UserFactory
from tests.concurrency import run_threads

GOOD_PASSWORD = "correct horse battery 42"


@pytest.mark.django_db
def test_an_invite_has_an_unguessable_token_and_is_audited(project, lead):
    first = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    second = invite_create(project=project, by=lead, max_uses=3, valid_days=1)
    assert len(first.token) >= 40 and first.token != second.token
    assert AuditEntry.objects.filter(action="invite.create", project=project).count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("max_uses", "valid_days", "field"),
    [(0, 7, "max_uses"), (-1, 7, "max_uses"), ("3", 7, "max_uses"), (1, 0, "valid_days"), (1, 400, "valid_days")],
)
def test_bad_invite_settings_are_refused_by_field(project, lead, max_uses, valid_days, field):
    with pytest.raises(ValidationError) as exc:
        invite_create(project=project, by=lead, max_uses=max_uses, valid_days=valid_days)
    assert field in exc.value.message_dict
    assert not Invite.objects.exists()


@pytest.mark.django_db
def test_a_single_use_invite_admits_one(project, lead):
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    first, second = UserFactory(username="first"), UserFactory(username="second")
    membership, new = invite_accept(token=invite.token, user=first)
    assert new and membership.role == Membership.Role.RATER
    with pytest.raises(InviteUnavailable) as exc:
        invite_accept(token=invite.token, user=second)
    assert exc.value.state == Invite.State.USED_UP
    assert not Membership.objects.filter(user=second).exists()


@pytest.mark.django_db
def test_a_member_opening_the_link_again_uses_nothing(project, lead):
    invite = invite_create(project=project, by=lead, max_uses=2, valid_days=7)
    user = UserFactory(username="twice")
    invite_accept(token=invite.token, user=user)
    _, new = invite_accept(token=invite.token, user=user)
    invite.refresh_from_db()
    assert not new and invite.n_used == 1


@pytest.mark.django_db
def test_an_expired_invite_admits_no_one(project, lead):
    invite = invite_create(project=project, by=lead, max_uses=5, valid_days=1)
    later = timezone.now() + timedelta(days=1, seconds=1)
    with pytest.raises(InviteUnavailable) as exc:
        invite_accept(token=invite.token, user=UserFactory(username="late"), now=later)
    assert exc.value.state == Invite.State.EXPIRED
    assert not Membership.objects.filter(user__username="late").exists()


@pytest.mark.django_db
def test_a_revoked_invite_admits_no_one_and_revoking_is_logged_once(project, lead):
    invite = invite_create(project=project, by=lead, max_uses=5, valid_days=7)
    invite_revoke(invite=invite, by=lead)
    invite_revoke(invite=invite, by=lead)
    with pytest.raises(InviteUnavailable) as exc:
        invite_accept(token=invite.token, user=UserFactory(username="late"))
    assert exc.value.state == Invite.State.REVOKED
    assert AuditEntry.objects.filter(action="invite.revoke").count() == 1


@pytest.mark.django_db
def test_signup_creates_a_rater_account(project, lead):
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    user = invite_signup(token=invite.token, username="newcomer", password=GOOD_PASSWORD)
    assert user.check_password(GOOD_PASSWORD)
    assert Membership.objects.get(user=user).role == Membership.Role.RATER


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("username", "password", "field"),
    [
        ("newcomer", "short", "password"),  # too short
        ("newcomer", "12345678901", "password"),  # all digits
        ("newcomer", "password123", "password"),  # common
        ("newcomer", "newcomer1", "password"),  # like the username (and short)
        ("bad name!", GOOD_PASSWORD, "username"),
        ("", GOOD_PASSWORD, "username"),
        ("lead", GOOD_PASSWORD, "username"),  # taken
    ],
)
def test_signup_validation_names_the_field_and_creates_nothing(project, lead, username, password, field):
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    n_users = get_user_model().objects.count()
    with pytest.raises(ValidationError) as exc:
        invite_signup(token=invite.token, username=username, password=password)
    assert field in exc.value.message_dict
    invite.refresh_from_db()
    assert invite.n_used == 0 and get_user_model().objects.count() == n_users


@pytest.mark.django_db
def test_signup_through_a_used_up_invite_creates_no_account(project, lead):
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    invite_signup(token=invite.token, username="first", password=GOOD_PASSWORD)
    with pytest.raises(InviteUnavailable):
        invite_signup(token=invite.token, username="second", password=GOOD_PASSWORD)
    assert not get_user_model().objects.filter(username="second").exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgresql
def test_a_cap_of_n_admits_exactly_n_racing_clients(project, lead):
    # Given an invite for 5 and 16 users who open it at the same instant, each on its own connection
    invite = invite_create(project=project, by=lead, max_uses=5, valid_days=1)
    users = [UserFactory(username=f"racer{i}") for i in range(16)]
    outcomes = []

    def join(i):
        try:
            invite_accept(token=invite.token, user=users[i])
            outcomes.append("joined")
        except InviteUnavailable as exc:
            outcomes.append(exc.state)

    errors = run_threads(len(users), join)
    # Then exactly 5 joined, the other 11 were told it is used up, and the count agrees with the members
    assert not errors
    assert sorted(outcomes).count("joined") == 5 and outcomes.count(Invite.State.USED_UP) == 11
    invite.refresh_from_db()
    assert invite.n_used == 5
    assert Membership.objects.filter(project=project, role=Membership.Role.RATER).count() == 5
