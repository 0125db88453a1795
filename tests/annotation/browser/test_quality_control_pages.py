"""In a browser: a rater in training sees the expected answer and the explanation after a gold item, then
real work; a paused rater's screen says they are paused; the lead pauses and resumes from the rater page."""

import pytest

from annotation.models import Membership, RaterAction
from annotation.services import rater_pause
from annotation.services.assignment import assignment_next_for_rater
from tests.annotation.browser.test_rater_keyboard import PASSWORD, enter_project, submit_and_wait, wait_for_screen
from tests.annotation.factories import ItemFactory, MembershipFactory, UserFactory
from tests.annotation.rating import add_raters, rating_project
from tests.browser_support import at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WHY = "A summary that repeats itself is not fluent."


def test_training_feedback_then_real_work(page, live_server, screenshot):
    project = rating_project(n_items=1, training_items=1)
    ItemFactory(project=project, n_target=0, gold={"fluency": {"sysA": 2}}, meta={"explanation": WHY}, training=True)
    (rater,) = add_raters(project)
    enter_project(page, live_server, rater, project)

    page.keyboard.press("4")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    feedback = page.wait_for_selector("[data-testid=training-feedback]")
    assert WHY in feedback.inner_text() and "not what we expected" in feedback.inner_text()
    screenshot(page, "training-feedback")

    with page.expect_navigation():
        page.click("text=Next")
    wait_for_screen(page)
    page.keyboard.press("3")
    submit_and_wait(page)
    page.wait_for_selector("[data-testid=finished]")
    assert Membership.objects.get(user=rater).training_done == 1


def test_a_paused_rater_is_told_and_a_lead_resumes_them(page, live_server, screenshot):
    project = rating_project(n_items=2)
    lead = UserFactory(username="qc-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    (rater,) = add_raters(project)
    rater_pause(project=project, rater=rater, by=lead, reason="answers in under a second")

    log_in(page, live_server.url, rater.username, PASSWORD, f"/projects/{project.pk}/instructions/")
    page.goto(f"{live_server.url}/projects/{project.pk}/rate/")
    assert "paused your work" in page.inner_text("main")
    screenshot(page, "rater-paused")

    page.context.clear_cookies()
    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/raters/")
    row = page.locator(f"tr[data-rater='{rater.username}']")
    row.locator("input[name=reason]").fill("talked it through")
    with page.expect_navigation():
        row.locator("button[value=resume]").click()
    assert "resume logged" in page.inner_text("main")
    assert not Membership.objects.get(user=rater).is_paused
    assert RaterAction.objects.filter(kind="resume", reason="talked it through").exists()


def test_a_lead_pauses_a_rater_for_good_and_is_told_what_went_back_to_the_pool(page, live_server, screenshot):
    project = rating_project(n_items=2)
    lead = UserFactory(username="qc-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    (rater,) = add_raters(project)
    held = assignment_next_for_rater(project_id=project.pk, rater=rater)

    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/raters/")
    at_every_width(page, screenshot, "rater-quality-pause-for-good")
    row = page.locator(f"tr[data-rater='{rater.username}']")
    row.locator("input[name=reason]").fill("left the study")
    with page.expect_navigation():
        row.locator("button[value=pause_for_good]").click()
    assert f"Re-planned: 1 item {rater.username} held went back to the pool" in page.inner_text("main")
    at_every_width(page, screenshot, "rater-paused-for-good")
    held.refresh_from_db()
    assert held.status == "expired" and Membership.objects.get(user=rater).is_paused
