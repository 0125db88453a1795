"""In a browser, the lead's grouped navigation at a laptop's, a tablet's and a phone's width: every group in view
on the wider two; on a phone a closed menu that opens to every link as a 44 px touch target; the page never
scrolls sideways, the current page is marked, and axe finds nothing on the open menu."""

import pytest

from annotation.models import Membership
from tests.accessibility.test_pages_meet_wcag import problems
from tests.annotation.browser.test_rater_keyboard import PASSWORD
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import rating_project
from tests.browser_support import VIEWPORTS, log_in, page_overflow
from tests.console.views.test_lead_nav import GROUPS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
N_LINKS = sum(len(texts) for texts in GROUPS.values())


def test_the_grouped_navigation_at_every_width(page, live_server, screenshot):
    project = rating_project(n_items=2)
    lead = UserFactory(username="nav-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/results/")
    nav = page.get_by_test_id("lead-nav")
    menu = nav.locator("summary")

    for width in ("desktop", "tablet"):
        page.set_viewport_size(VIEWPORTS[width])
        assert not menu.is_visible()
        assert [g.inner_text() for g in nav.locator(".lead-nav-label").all()] == [g.upper() for g in GROUPS]
        assert nav.get_by_role("link").count() == N_LINKS
        assert all(link.is_visible() for link in nav.get_by_role("link").all())
        assert nav.locator("[aria-current=page]").inner_text() == "Results"
        assert page_overflow(page) <= 0, width
        screenshot(page, f"lead-nav-{width}")

    page.set_viewport_size(VIEWPORTS["phone"])
    assert menu.is_visible() and menu.inner_text() == "Menu: Results"
    assert menu.bounding_box()["height"] >= 44
    assert not nav.get_by_role("link", name="Agreement").is_visible()
    screenshot(page, "lead-nav-phone-closed")
    menu.click()
    links = nav.get_by_role("link").all()
    assert len(links) == N_LINKS and all(link.is_visible() for link in links)
    assert min(link.bounding_box()["height"] for link in links) >= 44
    assert page_overflow(page) <= 0
    assert problems(page) == []
    screenshot(page, "lead-nav-phone-open")
    with page.expect_navigation():
        nav.get_by_role("link", name="Agreement").click()
    assert page.get_by_test_id("lead-nav").locator("summary").inner_text() == "Menu: Agreement"
