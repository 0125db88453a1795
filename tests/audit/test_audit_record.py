"""audit_record: who acted (a user, or a command by name), the request's source and address, and a
log that outlives its users."""

import datetime

import pytest

from audit.models import AuditEntry
from audit.services import audit_record
from tests.annotation.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_a_user_or_a_command_by_name():
    user = UserFactory(username="ana")
    by_user = audit_record(actor=user, action="user.create", target="x")
    assert (by_user.actor, by_user.actor_name, by_user.source, by_user.ip) == (user, "ana", "command", None)
    by_command = audit_record(actor="manage.py export_project", action="export.create")
    assert (by_command.actor, by_command.actor_name) == (None, "manage.py export_project")
    named = audit_record(actor=None, actor_name="manage.py demo", action="items.import")
    assert (named.actor, named.actor_name) == (None, "manage.py demo")


def test_detail_keeps_dates_and_long_targets_are_cut():
    entry = audit_record(
        actor=None, action="export.create", target="x" * 300, detail={"day": datetime.date(2026, 1, 2)}
    )
    entry.refresh_from_db()
    assert entry.detail == {"day": "2026-01-02"} and len(entry.target) == 255


def test_the_entry_outlives_its_user_and_project(project):
    user = UserFactory(username="gone")
    entry = audit_record(actor=user, action="rater.pause", project=project, target="r")
    user.delete()
    project.delete()
    entry = AuditEntry.objects.get(pk=entry.pk)
    assert (entry.actor, entry.actor_name, entry.project, entry.project_name) == (None, "gone", None, "likert study")
