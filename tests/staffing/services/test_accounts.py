"""Bulk accounts from a CSV: all or nothing, line-numbered errors, one-time passwords stored hashed."""

import io

import pytest
from django.contrib.auth import get_user_model

from annotation.models import Membership
from audit.models import AuditEntry
from staffing.models import PasswordChangeRequired
from staffing.services import BulkRejected, accounts_bulk_create


def _csv(text: str) -> io.BytesIO:
    return io.BytesIO(text.encode())


@pytest.mark.django_db
def test_accounts_are_rater_members_with_strong_one_time_passwords(project, lead):
    credentials = accounts_bulk_create(
        project=project, by=lead, stream=_csv("username,email\nann,ann@example.org\nbob,\n")
    )
    assert [(c.username, c.email) for c in credentials] == [("ann", "ann@example.org"), ("bob", "")]
    for c in credentials:
        user = get_user_model().objects.get(username=c.username)
        assert len(c.password) >= 16 and user.check_password(c.password)
        assert c.password not in user.password  # only the hash is stored
        assert Membership.objects.get(user=user, project=project).role == Membership.Role.RATER
        assert PasswordChangeRequired.objects.filter(user=user).exists()
    assert credentials[0].password != credentials[1].password
    entry = AuditEntry.objects.get(action="accounts.bulk_create")
    assert entry.detail == {"usernames": ["ann", "bob"]}
    assert "password" not in str(entry.detail).replace("usernames", "")


@pytest.mark.django_db
def test_username_only_header_and_a_bom_are_accepted(project, lead):
    credentials = accounts_bulk_create(project=project, by=lead, stream=io.BytesIO("\ufeffusername\ncarla\n".encode()))
    assert [c.username for c in credentials] == ["carla"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "errors"),
    [
        ("ann,ann@example.org\n", [(1, "header")]),
        ("username,phone\nann,1\n", [(1, "header may name only")]),
        ("username\n", [(2, "no rows")]),
        (
            "username,email\nann,ann@example.org\nbad name!,\ncarla,not-an-email\nann,\n",
            [(3, "'bad name!'"), (4, "'not-an-email' is not a valid address"), (5, "'ann' is also on line 2")],
        ),
        (
            "username,email\nann\ndora,d@example.org,extra\n",
            [(2, "1 values where the header has 2"), (3, "3 values where the header has 2")],
        ),
        ("username\n\nlead\n", [(3, "'lead' is taken by an existing account")]),
        ("username,email\n,a@example.org\n", [(2, "username is empty")]),
    ],
)
def test_a_bad_file_is_refused_whole_with_line_numbers(project, lead, text, errors):
    n_users, n_members = get_user_model().objects.count(), Membership.objects.count()
    with pytest.raises(BulkRejected) as exc:
        accounts_bulk_create(project=project, by=lead, stream=_csv(text))
    got = exc.value.errors
    assert [line for line, _ in got] == [line for line, _ in errors], got
    for (_, message), (_, expected) in zip(got, errors, strict=True):
        assert expected in message
    assert get_user_model().objects.count() == n_users and Membership.objects.count() == n_members
    assert not PasswordChangeRequired.objects.exists() and not AuditEntry.objects.exists()


@pytest.mark.django_db
def test_not_utf8_is_refused(project, lead):
    with pytest.raises(BulkRejected) as exc:
        accounts_bulk_create(project=project, by=lead, stream=io.BytesIO(b"username\n\xff\xfe\n"))
    assert "not UTF-8" in exc.value.errors[0][1]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'username,email\nann,"' + b"x" * 140_000 + b'"\n', "not readable as CSV"),
        (
            b"username,email\nann,"
            + b"a" * 64
            + b"@"
            + b".".join(x * 60 for x in (b"b", b"c", b"d"))
            + b".eeeee.org\n",
            "is longer than 254 characters",
        ),
    ],
)
def test_unreadable_rows_and_overlong_addresses_are_refused_by_line(project, lead, body, expected):
    with pytest.raises(BulkRejected) as refused:
        accounts_bulk_create(project=project, stream=io.BytesIO(body), by=lead)
    assert refused.value.errors[0][0] == 2 and expected in refused.value.errors[0][1]
    assert not get_user_model().objects.filter(username="ann").exists()
