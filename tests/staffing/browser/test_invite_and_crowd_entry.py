"""In a browser: a lead creates an invite from the team page, a fresh browser opens the link, signs up and
lands on the rating screen; a crowd worker enters by the external link, judges and sees their code."""

import re

import pytest

from annotation.models import Membership
from staffing.models import ExternalWorker, Invite
from staffing.services import external_link_reset
from tests.annotation.browser.test_rater_keyboard import PASSWORD, wait_for_screen
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import rating_project
from tests.browser_support import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEW_PASSWORD = "a long and fresh passphrase"


def test_a_lead_invites_and_a_newcomer_signs_up_and_rates(browser, page, live_server, screenshot):
    project = rating_project(n_items=2, instructions="Rate the fluency of each summary.")
    lead = UserFactory(username="invite-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)

    # The lead goes from the project to the team page, then creates a single-use invite
    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/")
    with page.expect_navigation():
        page.get_by_test_id("lead-nav").get_by_role("link", name="Team", exact=True).click()
    screenshot(page, "staffing-team")
    with page.expect_navigation():
        page.click("text=invite links")
    page.check("input[name=kind][value=single]")
    page.fill("#id_valid_days", "3")
    with page.expect_navigation():
        page.click("text=Create invite")
    link = page.input_value("input.invite-url")
    assert re.fullmatch(rf"{re.escape(live_server.url)}/invite/[\w-]{{40,}}/", link)
    screenshot(page, "staffing-invites")

    # A newcomer, in a browser of their own, opens the link and signs up
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    newcomer = context.new_page()
    newcomer.set_default_timeout(15_000)
    newcomer.goto(link)
    newcomer.fill("#id_username", "newcomer")
    newcomer.fill("#id_password", "short")
    newcomer.fill("#id_password_again", "short")
    with newcomer.expect_navigation():
        newcomer.click("text=Sign up and join")
    assert "too short" in newcomer.inner_text("#password_error")
    screenshot(newcomer, "staffing-signup-refused")
    newcomer.fill("#id_password", NEW_PASSWORD)
    newcomer.fill("#id_password_again", NEW_PASSWORD)
    with newcomer.expect_navigation():
        newcomer.click("text=Sign up and join")

    # They land on the instructions, then the rating screen
    newcomer.wait_for_url("**/instructions/")
    assert "Welcome to" in newcomer.inner_text("main")
    screenshot(newcomer, "staffing-joined-instructions")
    with newcomer.expect_navigation():
        newcomer.click("#start")
    wait_for_screen(newcomer)
    screenshot(newcomer, "staffing-joined-rating-screen")
    assert Membership.objects.get(user__username="newcomer", project=project).role == Membership.Role.RATER

    # The link is spent: a second visitor is told so
    second = context.new_page()
    second.context.clear_cookies()
    second.goto(link)
    assert "used up" in second.inner_text("[data-testid=invite-unavailable]")
    screenshot(second, "staffing-invite-used-up")
    context.close()
    assert Invite.objects.get().n_used == 1

    # The lead sees the newcomer on the team page and pauses them there
    page.goto(f"{live_server.url}/projects/{project.pk}/team/")
    row = page.locator("tr[data-member='newcomer']")
    row.locator("input[name=reason]").fill("checking their first answers")
    with page.expect_navigation():
        row.locator("button[value=pause]").click()
    assert "newcomer: pause done" in page.inner_text("main")
    assert Membership.objects.get(user__username="newcomer").is_paused
    screenshot(page, "staffing-team-paused")


def test_a_crowd_worker_judges_and_sees_their_completion_code(page, live_server, screenshot):
    project = rating_project(n_items=1, instructions="Rate the fluency.")
    lead = UserFactory(username="crowd-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    link = external_link_reset(project=project, by=lead)

    page.goto(f"{live_server.url}/projects/{project.pk}/external/{link.token}/?PROLIFIC_PID=5f2a9c1e8b7d6a0012345678")
    page.wait_for_url("**/instructions/")
    with page.expect_navigation():
        page.click("#start")
    wait_for_screen(page)
    page.keyboard.press("4")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    code = page.inner_text("[data-testid=completion-code]")
    assert code == ExternalWorker.objects.get(worker_id="5f2a9c1e8b7d6a0012345678").completion_code
    screenshot(page, "staffing-completion-code")
    page.reload()
    assert page.inner_text("[data-testid=completion-code]") == code
