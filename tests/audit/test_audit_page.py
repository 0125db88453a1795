"""/projects/<pk>/audit/: the lead's audit log page, newest first, readable rows, filters that keep to
their pages, a link from the project page, and the usual gates (login, 403 raters, 404 outsiders)."""

import pytest
from django.test import Client

from audit.services import audit_record
from console.views_audit import PAGE_SIZE
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def browser(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def page(client, project, **params) -> str:
    response = client.get(f"/projects/{project.pk}/audit/", params)
    assert response.status_code == 200
    return response.content.decode()


def test_rows_say_when_who_what_and_detail_readably(project, lead):
    audit_record(
        actor=lead,
        action="qc.rules_update",
        project=project,
        target="version 2",
        detail={"version": 2, "changed": {"gold_accuracy_threshold": [0.6, 0.75], "action": ["warn", None]}},
    )
    audit_record(
        actor="manage.py import_items",
        action="items.import",
        project=project,
        target="batch.jsonl",
        detail={"imported": 12, "format": "jsonl"},
    )
    audit_record(
        actor=lead,
        action="qc.apply",
        project=project,
        target="version 2",
        detail={"actions": [{"rater": "ann", "kind": "pause", "rule": "gold_accuracy"}]},
    )
    html = page(browser(lead), project)
    rows = html.split('<tr data-action="')[1:]
    assert [row.split('"')[0] for row in rows] == ["qc.apply", "items.import", "qc.rules_update"]  # newest first
    assert "<dt>gold accuracy threshold</dt><dd>0.6 → 0.75</dd>" in rows[2]
    assert "<dt>action</dt><dd>warn → —</dd>" in rows[2] and "<dt>version</dt><dd>2</dd>" in rows[2]
    assert "manage.py import_items" in rows[1] and "batch.jsonl" in rows[1] and "<dd>12</dd>" in rows[1]
    # jsonb orders an object's keys its own way: each pair is there, readable
    actions = rows[0].split("<dt>actions</dt><dd>")[1].split("</dd>")[0]
    assert sorted(actions.split(", ")) == ["kind pause", "rater ann", "rule gold_accuracy"]
    assert "<time datetime=" in rows[0] and ">lead<" in rows[0]


def test_user_text_is_escaped(project, lead):
    audit_record(
        actor=lead,
        action="items.import",
        project=project,
        target="<script>alert(1)</script>.jsonl",
        detail={"note": "<b>x</b>"},
    )
    html = page(browser(lead), project)
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;.jsonl" in html
    assert "<b>x</b>" not in html


def test_filters_by_action_group_and_actor(project, lead):
    other = MembershipFactory(project=project, user=UserFactory(username="co-lead"), role="lead").user
    audit_record(actor=lead, action="rater.pause", project=project, target="r1")
    audit_record(actor=other, action="rater.exclude", project=project, target="r2")
    audit_record(actor=lead, action="items.import", project=project, target="f.jsonl")
    client = browser(lead)
    assert page(client, project, action="rater").count('<tr data-action="rater.') == 2
    assert 'data-action="items.import"' not in page(client, project, action="rater")
    only = page(client, project, action="rater", actor="co-lead")
    assert only.count("<tr data-action=") == 1 and 'data-action="rater.exclude"' in only
    assert '<option value="co-lead" selected>' in only and '<option value="rater" selected>' in only
    assert "Nothing recorded for this filter" in page(client, project, action="export")


def test_pages_keep_the_filter(project, lead):
    for k in range(PAGE_SIZE + 5):
        audit_record(actor=lead, action="qc.apply", project=project, target=f"run {k}")
    audit_record(actor=lead, action="items.import", project=project)
    client = browser(lead)
    first = page(client, project, action="qc")
    assert first.count("<tr data-action=") == PAGE_SIZE and "Page 1 of 2" in first
    assert 'href="?action=qc&amp;actor=&amp;page=2"' in first
    second = page(client, project, action="qc", page=2)
    assert second.count("<tr data-action=") == 5 and "run 0<" in second
    assert page(client, project, page="999").count("<tr data-action=") == 6  # past the end: the last page


def test_query_count_is_pinned_and_does_not_grow(project, lead, django_assert_num_queries):
    client = browser(lead)
    for k in range(3):
        audit_record(actor=lead, action="qc.apply", project=project, target=f"run {k}")
    # session + user, savepoint + release, project + criteria + role, actor names, count, page
    with django_assert_num_queries(10):
        page(client, project)
    for k in range(40):
        audit_record(actor=lead, action="rater.pause", project=project, target=f"r{k}", detail={"reason": "x"})
    with django_assert_num_queries(10):
        page(client, project)


def test_who_may_open_it(project, rater, lead):
    outsider = MembershipFactory(project=ProjectFactory(), user=UserFactory(username="outsider"), role="lead").user
    path = f"/projects/{project.pk}/audit/"
    anonymous = browser().get(path)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    assert browser(rater).get(path).status_code == 403
    assert browser(outsider).get(path).status_code == 404
    assert browser(lead).get(path).status_code == 200


def test_the_leads_project_page_links_to_it_and_the_raters_does_not(project, rater, lead):
    link = f'href="/projects/{project.pk}/audit/"'
    assert link in browser(lead).get(f"/projects/{project.pk}/").content.decode()
    assert link not in browser(rater).get(f"/projects/{project.pk}/").content.decode()
