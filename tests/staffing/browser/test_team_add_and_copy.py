"""In Chromium: a lead adds an existing account to the team from the team page, then copies an invite link and
the crowd link with their Copy buttons (read back from the clipboard); the invites page says whether each email
went out. Screenshots at three widths."""

import pytest

from annotation.models import Membership
from staffing.models import InviteEmail
from staffing.services import external_link_reset, invite_create
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.browser_support import at_every_width, log_in
from tests.integration.test_alert_email_worker import Sink

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def clipboard_page(browser, live_server):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def test_a_lead_adds_a_member_and_copies_the_links(clipboard_page, live_server, screenshot):
    page = clipboard_page
    project = ProjectFactory(name="team study")
    lead = UserFactory(username="team-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    UserFactory(username="ana")
    invite = invite_create(project=project, by=lead, max_uses=5, valid_days=7)
    external_link_reset(project=project, by=lead)
    log_in(page, live_server.url, "team-lead", "pass-word-1234", f"/projects/{project.pk}/team/")

    page.get_by_label("Username").fill("ana")
    page.get_by_label("Role").select_option("rater")
    with page.expect_navigation():
        page.get_by_role("button", name="Add to the team").click()
    assert "ana is on the team as a rater." in page.inner_text("main")
    assert page.locator("[data-testid=team] tr[data-member=ana]").is_visible()
    at_every_width(page, screenshot, "team-add")

    page.goto(f"{live_server.url}/projects/{project.pk}/invites/")
    page.get_by_role("button", name="Copy link").click()
    page.wait_for_function("document.getElementById('copy-status').textContent.startsWith('Copied')")
    assert page.evaluate("navigator.clipboard.readText()") == f"{live_server.url}/invite/{invite.token}/"
    at_every_width(page, screenshot, "team-invite-copied")

    page.goto(f"{live_server.url}/projects/{project.pk}/external/")
    page.get_by_role("button", name="Copy the link").click()
    page.wait_for_function("document.getElementById('copy-status').textContent.startsWith('Copied')")
    assert page.evaluate("navigator.clipboard.readText()") == page.input_value("#other-url")
    assert page.input_value("#other-url").endswith("?worker_id=")


def test_the_invites_page_shows_whether_each_email_went_out(page, live_server, screenshot, settings):
    sink = Sink()
    sink.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", sink.port, 5
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.CONCORD_INVITE_EMAILS = True
    project = ProjectFactory(name="email study")
    lead = UserFactory(username="email-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    invite = invite_create(project=project, by=lead, max_uses=5, valid_days=7)
    InviteEmail.objects.create(
        invite=invite,
        to="earlier@example.org",
        url="http://x/",
        status="failed",
        attempts=6,
        last_error="SMTPRecipientsRefused: {'earlier@example.org': (550, 'no')}",
    )
    log_in(page, live_server.url, "email-lead", "pass-word-1234", f"/projects/{project.pk}/invites/")

    # Given the server is up, the email (sent by eager Celery after the request) shows as sent
    page.get_by_label(f"Email invite {invite.pk} to").fill("ana@example.org")
    with page.expect_navigation():
        page.get_by_role("button", name="Email it").click()
    assert f"Invite {invite.pk} is being emailed to ana@example.org" in page.inner_text("main")
    page.reload()
    emails = page.get_by_test_id("invite-emails")
    assert emails.locator("li[data-status=sent]").inner_text().startswith("ana@example.org: sent ")

    # When it is down, the next one waits with the server's reason
    sink.stop()
    page.get_by_label(f"Email invite {invite.pk} to").fill("ben@example.org")
    with page.expect_navigation():
        page.get_by_role("button", name="Email it").click()
    page.reload()
    # in words a lead can act on; the mail server's own message is for the log, not the page
    pending = emails.locator("li[data-status=pending]")
    assert pending.inner_text().startswith(
        "ben@example.org: sending; not sent after 1 attempt: the mail server could not be reached"
    )
    failed = emails.locator("li[data-status=failed]").inner_text()
    assert failed.startswith("earlier@example.org: not sent: the mail server refused the recipient's address.")
    assert "Errno" not in page.inner_text("main") and "550" not in page.inner_text("main")

    # and at every width the emails' state is on screen without scrolling sideways; on a phone, where the row
    # stacks, it comes right under the invite's state, before the form and the buttons
    def emails_off_screen(page):
        box = emails.bounding_box()
        if box["x"] + box["width"] > page.viewport_size["width"]:
            return box
        below_state = box["y"] > page.locator(f"tr[data-invite='{invite.pk}'] td[data-label=State]").bounding_box()["y"]
        above_form = box["y"] < page.get_by_label(f"Email invite {invite.pk} to").bounding_box()["y"]
        return page.viewport_size["width"] < 600 and not (below_state and above_form) and box

    at_every_width(page, screenshot, "team-invite-emails", check=emails_off_screen)
