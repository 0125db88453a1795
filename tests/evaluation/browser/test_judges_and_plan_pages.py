"""In a browser: a lead opens the judges page from the lead bar, reads the alt-test and the
prediction-powered estimates, opens a confusion cell's items, then plans the next study; at desktop,
tablet and phone widths, with nothing scrolling sideways but the wide tables' own boxes."""

import pytest

from tests.annotation.browser.test_rater_keyboard import PASSWORD
from tests.browser_support import log_in
from tests.evaluation.judge_studies import likert_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"desktop": (1280, 800), "tablet": (768, 1024), "phone": (390, 844)}


def at_every_size(page, screenshot, name):
    """The page at each size: nothing scrolls sideways but the plots' and tables' own boxes."""
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.reload()
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width + 1, f"the {name} page scrolls sideways at {size} ({scroll}px)"
        screenshot(page, f"{name}-{size}")


def test_the_lead_reads_the_judge_tests_and_plans_the_study(page, live_server, screenshot, django_user_model):
    lead = django_user_model.objects.create_user(username="judge-lead", password=PASSWORD)
    project, _ = likert_study(lead)

    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/results/")
    with page.expect_navigation():
        page.get_by_test_id("lead-nav").get_by_role("link", name="Judges").click()
    assert page.locator("#alt-test svg rect").count() == 1
    assert "gpt-4o-2024-08-06" in page.locator("#alt-test").inner_text()
    assert page.locator("#prediction-powered svg circle").count() == 9  # 3 estimates x (2 means + 1 win rate)
    # the appendix variants: Wilcoxon's test, and r0 as the expert the others compete to represent
    page.select_option("#alt-test select[name=test]", "wilcoxon")
    page.select_option("#alt-test select[name=expert]", "r0")
    with page.expect_navigation():
        page.get_by_role("button", name="Test again").click()
    assert "represents r0 better" in page.get_by_test_id("expert").inner_text()
    first_cell = page.locator("#confusion table a").first
    with page.expect_navigation():
        first_cell.click()
    assert page.locator("#confusion ul.units a").count() >= 1
    assert page.get_by_test_id("expert").count() == 1  # the cell's link keeps the test's options

    at_every_size(page, screenshot, "judges")

    page.set_viewport_size({"width": 1280, "height": 800})
    with page.expect_navigation():
        page.get_by_test_id("lead-nav").get_by_role("link", name="Study plan").click()
    page.fill("input[name=effect]", "0.4")
    with page.expect_navigation():
        page.get_by_role("button", name="Plan", exact=True).click()
    assert page.locator("#curve polyline").count() == 4
    assert "items ×" in page.get_by_test_id("recommended").inner_text()
    at_every_size(page, screenshot, "plan")
