"""Invite emails through a real Celery worker to a real SMTP server on loopback (aiosmtpd): sent after the
lead's request, retried while the server is down and sent when it is back, once."""

import pytest

from annotation.models import Membership
from staffing.jobs import invite_email_send_job
from staffing.models import InviteEmail
from staffing.services import invite_create
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.integration import test_alert_email_worker
from tests.integration.test_agreement_recompute_worker import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
sink, mail_worker = test_alert_email_worker.sink, test_alert_email_worker.mail_worker  # their fixtures


def test_an_invite_email_is_sent_by_the_worker_retried_while_the_server_is_down_and_sent_once(
    mail_worker, sink, client, settings
):
    settings.CONCORD_INVITE_EMAILS = True
    project = ProjectFactory(name="worker study")
    lead = UserFactory(username="worker-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    client.force_login(lead)
    invite = invite_create(project=project, by=lead, max_uses=5, valid_days=7)
    url = f"/projects/{project.pk}/invites/{invite.pk}/email/"

    # Given the server is up, the worker sends the email the request stored
    assert client.post(url, {"email": "first@example.org"}).status_code == 302
    wait_for(lambda: InviteEmail.objects.get(to="first@example.org").status == "sent", 60, "the first email")
    assert [m["To"] for m in sink.messages] == ["first@example.org"]

    # When the server is down, the email waits with the reason and is retried
    sink.stop()
    client.post(url, {"email": "second@example.org"})
    waiting = wait_for(
        lambda: (e := InviteEmail.objects.get(to="second@example.org")).attempts >= 2 and e, 60, "two failed tries"
    )
    assert waiting.status == "pending" and "ConnectionRefusedError" in waiting.last_error
    page = client.get(f"/projects/{project.pk}/invites/").content.decode()
    assert "second@example.org: sending; not sent after 2 attempts: the mail server could not be reached" in page

    # Then it is sent once the server is back, and a duplicate job sends nothing again
    sink.start()
    wait_for(lambda: InviteEmail.objects.get(to="second@example.org").status == "sent", 60, "the retried email")
    invite_email_send_job.delay(waiting.pk)
    client.post(url, {"email": "third@example.org"})  # the worker takes jobs in order
    wait_for(lambda: InviteEmail.objects.get(to="third@example.org").status == "sent", 60, "the third email")
    assert [m["To"] for m in sink.messages] == ["first@example.org", "second@example.org", "third@example.org"]
