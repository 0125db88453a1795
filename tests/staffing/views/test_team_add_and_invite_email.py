"""The team page adds people who already have an account; the invites page emails an invite link through a real
SMTP server on loopback (aiosmtpd) from a job after the request, once invite emails are configured, retries while
the server refuses, and says whether it went out and why not."""

import pytest
from celery.exceptions import Retry

from annotation.models import Membership
from audit.models import AuditEntry
from staffing.models import InviteEmail
from staffing.services import invite_create, invite_email_deliver, invite_revoke
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.integration.test_alert_email_worker import Sink

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(client):
    project = ProjectFactory(name="team study")
    lead = UserFactory(username="team-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    client.force_login(lead)
    return project, lead


def test_a_lead_adds_an_existing_account_as_rater_or_lead(client, team):
    project, _ = team
    UserFactory(username="ana")
    UserFactory(username="ben")
    done = client.post(f"/projects/{project.pk}/team/add/", {"username": "ana"}, follow=True)
    assert "ana is on the team as a rater." in done.content.decode()
    client.post(f"/projects/{project.pk}/team/add/", {"username": "ben", "role": "lead"})
    assert dict(project.memberships.values_list("user__username", "role")) == {
        "team-lead": "lead",
        "ana": "rater",
        "ben": "lead",
    }
    assert AuditEntry.objects.filter(action="member.add", target="ana").exists()


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"username": "nobody"}, "no active user named &#x27;nobody&#x27;"),
        ({"username": ""}, "Give the username of the account to add."),
        ({"username": "ana", "role": "owner"}, "unknown role &#x27;owner&#x27;; choose one of lead, rater"),
    ],
)
def test_adding_says_what_is_wrong(client, team, form, message):
    project, _ = team
    UserFactory(username="ana")
    refused = client.post(f"/projects/{project.pk}/team/add/", form)
    assert refused.status_code == 400 and message in refused.content.decode()
    assert project.memberships.count() == 1


@pytest.fixture
def sink(settings):
    sink = Sink()
    sink.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", sink.port, 5
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.CONCORD_INVITE_EMAILS = True
    yield sink
    if sink.controller.loop.is_running():
        sink.stop()


def test_an_invite_is_emailed_through_the_mail_server_by_a_job_after_the_request(
    client, team, sink, django_capture_on_commit_callbacks
):
    project, lead = team
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    page = client.get(f"/projects/{project.pk}/invites/").content.decode()
    assert 'data-testid="invite-email"' in page
    with django_capture_on_commit_callbacks() as callbacks:
        queued = client.post(f"/projects/{project.pk}/invites/{invite.pk}/email/", {"email": "rater@example.org"})
    # Given the request stored the email, nothing went out before the job ran
    assert queued.status_code == 302 and sink.messages == []
    assert InviteEmail.objects.get().status == "pending"
    for callback in callbacks:
        callback()
    (message,) = sink.messages
    assert message["To"] == "rater@example.org" and message["Subject"] == "Invitation: team study"
    assert f"http://testserver/invite/{invite.token}/" in message.get_payload(decode=True).decode()
    assert AuditEntry.objects.get(action="invite.email").detail == {"to": "rater@example.org"}
    email = InviteEmail.objects.get()
    assert (email.status, email.attempts, email.last_error) == ("sent", 1, "")
    page = client.get(f"/projects/{project.pk}/invites/").content.decode()
    assert f'<li data-status="sent">rater@example.org: sent {email.sent_at:%Y-%m-%d %H:%M}</li>' in page


def test_what_stops_an_email_is_said(client, team, sink, django_capture_on_commit_callbacks, caplog):
    project, lead = team
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    url = f"/projects/{project.pk}/invites/{invite.pk}/email/"
    bad = client.post(url, {"email": "not an address"}, follow=True).content.decode()
    assert "&#x27;not an address&#x27; is not an email address." in bad
    sink.stop()
    # When the server refuses, the job records why and retries (eager Celery raises the Retry that a real
    # worker schedules; tests/integration/test_invite_email_worker.py runs it through one)
    with django_capture_on_commit_callbacks() as callbacks:
        queued = client.post(url, {"email": "rater@example.org"}, follow=True).content.decode()
    assert f"Invite {invite.pk} is being emailed to rater@example.org" in queued
    with pytest.raises(Retry), caplog.at_level("WARNING", logger="staffing.services.invite_emails"):
        callbacks[0]()
    page = client.get(f"/projects/{project.pk}/invites/").content.decode()
    assert (
        '<li data-status="pending">rater@example.org: sending; not sent after 1 attempt: the mail server could not be '
        "reached (nothing answered at its address and port); trying again</li>"
    ) in page
    # the mail server's own message is in the log, not on the lead's page
    assert "ConnectionRefusedError" not in page and "Errno" not in page
    assert "ConnectionRefusedError: [Errno 111]" in caplog.text
    # And after the last try it is failed, with the reason
    email = InviteEmail.objects.get()
    assert invite_email_deliver(email_id=email.pk, last_try=True) == "failed"
    page = client.get(f"/projects/{project.pk}/invites/").content.decode()
    assert '<li data-status="failed">rater@example.org: not sent: the mail server could not be reached' in page
    invite_revoke(invite=invite, by=lead)
    revoked = client.post(url, {"email": "rater@example.org"}, follow=True).content.decode()
    assert "This invite is revoked; create a new one." in revoked
    assert sink.messages == [] and InviteEmail.objects.count() == 1


def test_a_refused_email_is_retried_and_sent_once_the_server_is_back(team, sink):
    project, lead = team
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    email = InviteEmail.objects.create(invite=invite, to="rater@example.org", url="http://testserver/invite/x/")
    sink.stop()
    with pytest.raises(ConnectionRefusedError):
        invite_email_deliver(email_id=email.pk, last_try=False)
    email.refresh_from_db()
    assert (email.status, email.attempts) == ("pending", 1) and "ConnectionRefusedError" in email.last_error
    sink.start()
    assert invite_email_deliver(email_id=email.pk, last_try=False) == "sent"
    # Then a redelivered job sends nothing again
    assert invite_email_deliver(email_id=email.pk, last_try=False) == "sent"
    email.refresh_from_db()
    assert (email.status, email.attempts, email.last_error, len(sink.messages)) == ("sent", 2, "", 1)


def test_an_invite_revoked_before_its_email_goes_out_is_not_sent(team, sink):
    project, lead = team
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    email = InviteEmail.objects.create(invite=invite, to="rater@example.org", url="http://testserver/invite/x/")
    invite_revoke(invite=invite, by=lead)
    assert invite_email_deliver(email_id=email.pk, last_try=False) == "failed"
    email.refresh_from_db()
    assert email.last_error == "the invite was revoked before the email went out" and sink.messages == []


def test_without_a_mail_server_the_page_says_invite_emails_are_off(client, team, settings):
    project, lead = team
    settings.CONCORD_INVITE_EMAILS = False
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    page = client.get(f"/projects/{project.pk}/invites/").content.decode()
    assert 'data-testid="invite-email"' not in page and 'data-testid="emails-off"' in page
    refused = client.post(f"/projects/{project.pk}/invites/{invite.pk}/email/", {"email": "a@example.org"}, follow=True)
    assert "Invite emails are off on this installation" in refused.content.decode()


def test_the_team_page_says_whether_invite_emails_went_out(client, team, settings):
    project, lead = team
    settings.CONCORD_INVITE_EMAILS = False
    summary = 'data-testid="invite-email-summary">'
    assert (
        f"{summary}Invite emails are off on this installation"
        in client.get(f"/projects/{project.pk}/team/").content.decode()
    )
    settings.CONCORD_INVITE_EMAILS = True
    assert f"{summary}Invite emails are on" in client.get(f"/projects/{project.pk}/team/").content.decode()
    invite = invite_create(project=project, by=lead, max_uses=5, valid_days=7)
    for status in ("sent", "sent", "pending", "failed"):
        InviteEmail.objects.create(invite=invite, to="a@example.org", url="http://x/", status=status)
    page = client.get(f"/projects/{project.pk}/team/").content.decode()
    assert f"{summary}Invite emails: 2 sent, 1 still being tried, 1 not sent (" in page
