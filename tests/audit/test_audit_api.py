"""GET /api/v1/projects/{id}/audit/: the project's entries newest first, paginated, filtered by action
(prefix), actor and time; leads and staff only; documented in the schema; nothing writable."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from audit.models import AuditEntry
from audit.services import audit_record
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def url(project) -> str:
    return f"/api/v1/projects/{project.pk}/audit/"


@pytest.fixture
def log(project, lead):
    audit_record(actor=lead, action="items.import", project=project, target="a.jsonl", detail={"imported": 3})
    audit_record(actor=lead, action="rater.pause", project=project, target="rater", detail={"reason": "spam"})
    audit_record(actor="manage.py export_project", action="export.create", project=project, target="x.zip")
    audit_record(actor=lead, action="items.import", project=ProjectFactory(), target="elsewhere.jsonl")
    return project


def test_entries_newest_first_with_every_field(log, lead_client):
    body = lead_client.get(url(log)).json()
    assert body["count"] == 3 and body["next"] is None
    assert [e["action"] for e in body["results"]] == ["export.create", "rater.pause", "items.import"]
    newest = body["results"][0]
    assert {k: newest[k] for k in ("actor", "action", "target", "detail", "source", "ip")} == {
        "actor": "manage.py export_project",
        "action": "export.create",
        "target": "x.zip",
        "detail": {},
        "source": "command",
        "ip": None,
    }
    assert body["results"][2]["detail"] == {"imported": 3}


def test_filters_by_action_prefix_actor_and_time(log, lead_client):
    def actions(**params):
        response = lead_client.get(url(log), params)
        assert response.status_code == 200, response.content
        return [e["action"] for e in response.json()["results"]]

    assert actions(action="rater") == actions(action="rater.") == actions(action="rater.pause") == ["rater.pause"]
    assert actions(action="item") == []  # a prefix stops at a dot: items.import is not an "item" action
    assert actions(actor="lead") == ["rater.pause", "items.import"]
    assert actions(actor="manage.py export_project", action="export") == ["export.create"]
    AuditEntry.objects.filter(action="items.import").update(created_at=timezone.now() - timedelta(days=3))
    since = (timezone.now() - timedelta(days=1)).isoformat()
    assert actions(since=since) == ["export.create", "rater.pause"]
    assert lead_client.get(url(log), {"since": "yesterday"}).status_code == 400


def test_pages_like_the_other_lists(project, lead, lead_client):
    for k in range(5):
        audit_record(actor=lead, action="qc.apply", project=project, target=f"run {k}")
    body = lead_client.get(url(project), {"page_size": 2}).json()
    assert body["count"] == 5 and len(body["results"]) == 2 and "page=2" in body["next"]
    assert [e["target"] for e in body["results"]] == ["run 4", "run 3"]


def test_the_query_count_does_not_grow_with_the_entries(project, lead, lead_client, django_assert_num_queries):
    for k in range(30):
        audit_record(actor=lead, action="qc.apply", project=project, target=f"run {k}")
    # the request's savepoint and its release, project + criteria prefetch + role, count, page
    with django_assert_num_queries(7):
        assert len(lead_client.get(url(project)).json()["results"]) == 30


def test_who_may_read(project, rater):
    other_project = ProjectFactory()
    outsider = MembershipFactory(project=other_project, user=UserFactory(username="outsider"), role="lead").user
    assert APIClient().get(url(project)).status_code == 401
    assert client_for(rater).get(url(project)).status_code == 403
    assert client_for(outsider).get(url(project)).status_code == 404
    assert client_for(UserFactory(username="boss", is_staff=True)).get(url(project)).status_code == 200


def test_entries_cannot_be_written_through_the_api(log, lead_client):
    entry = AuditEntry.objects.filter(project=log).first()
    for method in ("post", "put", "patch", "delete"):
        assert getattr(lead_client, method)(url(log), {"action": "x"}, format="json").status_code == 405
    assert AuditEntry.objects.filter(project=log).count() == 3
    entry.refresh_from_db()
    assert entry.action in ("items.import", "rater.pause", "export.create")


def test_documented_in_the_schema(lead_client):
    schema = lead_client.get("/api/schema/", {"format": "json"}).json()
    operations = schema["paths"]["/api/v1/projects/{id}/audit/"]
    assert set(operations) - {"parameters"} == {"get"}
    names = {p["name"] for p in operations["get"]["parameters"]}
    assert {"action", "actor", "since", "page", "page_size"} <= names
    listed = operations["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert listed.endswith("PaginatedAuditListOutputList")
