"""In a browser: a lead sets the crowd link's guards and completion rule on its page; a second made-up
worker id is refused, and a worker who flags every screen gets the polite page without a code."""

import hashlib
import hmac

import pytest

from annotation.models import Membership
from staffing.models import ExternalLink, ExternalWorker
from tests.annotation.browser.test_rater_keyboard import PASSWORD, wait_for_screen
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import rating_project
from tests.browser_support import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_lead_guards_the_crowd_link_and_a_flagging_worker_gets_no_code(browser, page, live_server, screenshot):
    project = rating_project(n_items=2, instructions="Rate the fluency.")
    lead = UserFactory(username="guard-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)

    # The lead turns the link on and sets its guards on the page
    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/external/")
    with page.expect_navigation():
        page.click("text=Create the link")
    page.fill("#id_max_identities", "1")
    page.fill("#id_max_identities_per_address", "1")
    page.check("#id_signed")
    page.fill("#id_min_judged_screens", "1")
    page.fill("#id_max_unjudged_percent", "0")
    with page.expect_navigation():
        page.click("text=Save the settings")
    assert "settings are saved" in page.inner_text("main")
    secret = page.input_value("#signing-secret")
    screenshot(page, "staffing-crowd-link-guards")
    link = ExternalLink.objects.get(project=project)
    assert (link.max_identities, link.max_identities_per_address, link.max_unjudged_share) == (1, 1, 0.0)

    def entry(worker_id):
        sig = hmac.new(secret.encode(), worker_id.encode(), hashlib.sha256).hexdigest()
        return f"{live_server.url}/projects/{project.pk}/external/{link.token}/?worker_id={worker_id}&sig={sig}"

    # A worker enters with a signed link and flags every screen
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    worker = context.new_page()
    worker.set_default_timeout(15_000)
    worker.goto(entry("FLAGGER"))
    worker.wait_for_url("**/instructions/")
    with worker.expect_navigation():
        worker.click("#start")
    for _ in range(2):
        wait_for_screen(worker)
        worker.click("details.flag summary")
        worker.check("input[name=reason][value=cannot_judge]")
        with worker.expect_navigation():
            worker.click("text=Flag and skip this item")
    worker.wait_for_url("**/done/")
    assert "Thank you for your time" in worker.inner_text("[data-testid=no-completion]")
    assert ExternalWorker.objects.get().completion_code not in worker.content()
    screenshot(worker, "staffing-no-completion-code")

    # A second made-up id, signed or not, is refused
    worker.context.clear_cookies()
    worker.goto(entry("FARMED2"))
    assert "admitted all the participants" in worker.inner_text("[data-testid=external-refused]")
    screenshot(worker, "staffing-crowd-entry-refused")
    context.close()
    assert ExternalWorker.objects.count() == 1
