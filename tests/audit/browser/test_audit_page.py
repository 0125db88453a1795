"""In a browser: a lead pauses a rater, then follows the project page's link to the audit log, filters it by
action with the keyboard and reads the entry (1280×800 and a tablet's width)."""

import pytest

from annotation.models import Membership
from audit.services import audit_record
from tests.annotation.browser.test_rater_keyboard import PASSWORD
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import add_raters, rating_project
from tests.browser_support import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_lead_reads_and_filters_the_audit_log(page, live_server, screenshot):
    project = rating_project(n_items=2)
    lead = UserFactory(username="audit-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    (rater,) = add_raters(project)
    audit_record(
        actor="manage.py import_items",
        action="items.import",
        project=project,
        target="batch.jsonl",
        detail={"imported": 2, "format": "jsonl"},
    )

    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/raters/")
    row = page.locator(f"tr[data-rater='{rater.username}']")
    row.locator("input[name=reason]").fill("answers in under a second")
    with page.expect_navigation():
        row.locator("button[value=pause]").click()

    page.goto(f"{live_server.url}/projects/{project.pk}/")
    with page.expect_navigation():
        page.get_by_test_id("lead-nav").get_by_role("link", name="Audit log").click()
    log = page.locator("[data-testid=audit-log]")
    assert log.locator("tbody tr").count() == 2
    newest = log.locator("tbody tr").first
    assert newest.get_attribute("data-action") == "rater.pause"
    assert "audit-lead" in newest.inner_text() and "answers in under a second" in newest.inner_text()
    screenshot(page, "audit-log")

    page.focus("#audit-action")
    page.select_option("#audit-action", "items")
    page.keyboard.press("Tab")  # to "Who"
    page.keyboard.press("Tab")  # to the Filter button
    with page.expect_navigation():
        page.keyboard.press("Enter")
    rows = page.locator("[data-testid=audit-log] tbody tr")
    assert rows.count() == 1 and "batch.jsonl" in rows.first.inner_text()
    assert "manage.py import_items" in rows.first.inner_text()

    page.set_viewport_size({"width": 768, "height": 1024})
    page.reload()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 768 + 1, f"the page scrolls sideways on a tablet ({width}px)"
    screenshot(page, "audit-log-tablet")
