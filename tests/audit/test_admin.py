"""The audit log in the admin: listed and searchable for staff, never added, changed or deleted."""

import pytest
from django.test import Client

from audit.models import AuditEntry
from audit.services import audit_record
from tests.annotation.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_read_only_in_the_admin(project, lead):
    entry = audit_record(actor=lead, action="rater.pause", project=project, target="ann", detail={"reason": "x"})
    admin = Client()
    admin.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    listing = admin.get("/admin/audit/auditentry/", {"q": "ann"})
    assert listing.status_code == 200 and "rater.pause" in listing.content.decode()
    assert admin.get("/admin/audit/auditentry/add/").status_code == 403
    view = admin.get(f"/admin/audit/auditentry/{entry.pk}/change/")
    assert view.status_code == 200 and 'name="_save"' not in view.content.decode()
    assert admin.post(f"/admin/audit/auditentry/{entry.pk}/change/", {"action": "forged"}).status_code == 403
    assert admin.post(f"/admin/audit/auditentry/{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert admin.post(
        "/admin/audit/auditentry/", {"action": "delete_selected", "_selected_action": [entry.pk], "post": "yes"}
    ).status_code in (200, 302)
    entry.refresh_from_db()
    assert entry.action == "rater.pause" and AuditEntry.objects.count() == 1
