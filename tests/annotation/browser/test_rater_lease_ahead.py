"""The screen after the current one is held in the page: Enter shows it before the server has answered, the
answers arrive behind it, the lease shown is the new one, and "previous" revises the screen just sent."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from annotation.models import Assignment, Judgment
from tests.annotation.browser.test_rater_keyboard import enter_project, submit_and_wait
from tests.annotation.rating import add_raters, rating_project
from tests.browser_support import VIEWPORTS, page_overflow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def held_ahead(page, rater):
    """Waits until the page holds the screen after the current one; returns that screen's assignment."""
    page.wait_for_function("() => performance.getEntriesByType('resource').some(e => e.name.endsWith('/rate/ahead/'))")
    current = int(re.search(r"/assignments/(\d+)/submit/", page.get_attribute("#rate-form", "action")).group(1))
    return Assignment.objects.get(rater=rater, status="active", id__gt=current)


def test_enter_shows_the_screen_held_ahead_before_the_server_answers(page, live_server, screenshot):
    project = rating_project(n_items=4, criteria=["fluency", "coherence"], systems=["s1", "s2"], lease_seconds=1800)
    (rater,) = add_raters(project)
    enter_project(page, live_server, rater, project)
    ahead = held_ahead(page, rater)
    held = []
    page.route("**/submit/", lambda route: held.append(route))  # the answers wait here until the test lets them through
    for key in "4354":
        page.keyboard.press(key)

    page.keyboard.press("Enter")

    # the next screen is up, focused on its first question, while the answers are still held back
    assert page.get_attribute("#rate-form", "action") == f"/assignments/{ahead.pk}/submit/"
    assert page.evaluate("document.activeElement.closest('fieldset.q') !== null")
    assert page.inner_text("[data-testid=progress]") == "1 of 4 done"
    lease = datetime.now(UTC) + timedelta(seconds=1800)
    assert page.inner_text("[data-lease-seconds]") in {f"{lease - timedelta(minutes=m):%H:%M}" for m in (0, 1)}
    page.wait_for_timeout(50)
    assert len(held) == 1 and not Judgment.objects.exists()
    with page.expect_response(lambda r: r.url.endswith("/submit/")):
        held[0].continue_()
    page.unroute("**/submit/")
    assert Judgment.objects.filter(rater=rater).count() == 4
    for name, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        assert page_overflow(page) <= 0
        screenshot(page, f"rate-likert-held-ahead-{name}")

    # "previous" revises the screen just sent; its answer brings back the screen the rater was on
    page.click("[data-testid=back]")
    page.wait_for_selector("text=You are revising")
    page.keyboard.press("1")
    submit_and_wait(page)
    assert page.get_attribute("#rate-form", "action") == f"/assignments/{ahead.pk}/submit/"
    assert Judgment.objects.filter(rater=rater, is_current=True).count() == 4
    assert Judgment.objects.filter(rater=rater, is_current=True, value=1).count() == 1

    # and on to the end, each screen from the page's memory or, for the last, from the server
    for _ in range(3):
        for key in "1234":
            page.keyboard.press(key)
        submit_and_wait(page)
    page.wait_for_selector("[data-testid=finished]")
    assert Judgment.objects.filter(rater=rater, is_current=True).count() == 16
    assert not Assignment.objects.filter(rater=rater, status="active").exists()
