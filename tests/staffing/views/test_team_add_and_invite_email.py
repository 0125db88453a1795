"""The team page adds people who already have an account; the invites page emails an invite link through a real
SMTP server on loopback (aiosmtpd) once invite emails are configured, and says why when it cannot."""
import pytest

from annotation.models import Membership
from audit.models import AuditEntry
from staffing.services import invite_create, invite_revoke
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
        "team-lead": "lead", "ana": "rater", "ben": "lead"}
    assert AuditEntry.objects.filter(action="member.add", target="ana").exists()


@pytest.mark.parametrize(("form", "message"), [
    ({"username": "nobody"}, "no active user named &#x27;nobody&#x27;"),
    ({"username": ""}, "Give the username of the account to add."),
    ({"username": "ana", "role": "owner"}, "unknown role &#x27;owner&#x27;; choose one of lead, rater"),
])
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


def test_an_invite_is_emailed_through_the_mail_server(client, team, sink):
    project, lead = team
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    page = client.get(f"/projects/{project.pk}/invites/").content.decode()
    assert 'data-testid="invite-email"' in page
    done = client.post(f"/projects/{project.pk}/invites/{invite.pk}/email/", {"email": "rater@example.org"},
                       follow=True)
    assert f"Invite {invite.pk} emailed to rater@example.org." in done.content.decode()
    (message,) = sink.messages
    assert message["To"] == "rater@example.org" and message["Subject"] == "Invitation: team study"
    assert f"http://testserver/invite/{invite.token}/" in message.get_payload(decode=True).decode()
    assert AuditEntry.objects.get(action="invite.email").detail == {"to": "rater@example.org"}


def test_what_stops_an_email_is_said(client, team, sink):
    project, lead = team
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    url = f"/projects/{project.pk}/invites/{invite.pk}/email/"
    bad = client.post(url, {"email": "not an address"}, follow=True).content.decode()
    assert "&#x27;not an address&#x27; is not an email address." in bad
    sink.stop()
    down = client.post(url, {"email": "rater@example.org"}, follow=True).content.decode()
    assert "The mail server did not take the message (ConnectionRefusedError" in down
    assert "the invite was not sent" in down
    invite_revoke(invite=invite, by=lead)
    revoked = client.post(url, {"email": "rater@example.org"}, follow=True).content.decode()
    assert "This invite is revoked; create a new one." in revoked
    assert sink.messages == [] and not AuditEntry.objects.filter(action="invite.email").exists()


def test_without_a_mail_server_the_page_says_invite_emails_are_off(client, team, settings):
    project, lead = team
    settings.CONCORD_INVITE_EMAILS = False
    invite = invite_create(project=project, by=lead, max_uses=1, valid_days=7)
    page = client.get(f"/projects/{project.pk}/invites/").content.decode()
    assert 'data-testid="invite-email"' not in page and 'data-testid="emails-off"' in page
    refused = client.post(f"/projects/{project.pk}/invites/{invite.pk}/email/", {"email": "a@example.org"},
                          follow=True)
    assert "Invite emails are off on this installation" in refused.content.decode()
