"""Alert emails: stored first, sent by a job after commit, recorded, retried by the sweep, never twice."""

import socket
import threading
from datetime import timedelta

import pytest
from django.core import mail
from django.db import connection, transaction
from django.test import override_settings
from django.utils import timezone

from agreement.jobs import alert_emails_send_pending_job
from agreement.models import AgreementAlert, AgreementSettings
from agreement.services import agreement_recompute_run, alert_emails_send, alerts_raise_for_latest_week
from core.models import Job
from core.services.job import job_run
from tests.agreement.services.test_alerts_and_schedule import snapshot
from tests.annotation.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


def closed_port() -> int:
    """A loopback port nothing listens on: connecting to it is refused, as localhost:25 was."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def refused_smtp():
    return override_settings(
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=closed_port(),
        EMAIL_TIMEOUT=5,
    )


@pytest.fixture
def low_agreement(project, lead):
    """A label whose latest week is far below the threshold: one alert."""
    lead.email = "lead@example.org"
    lead.save()
    monday = timezone.now().date() - timedelta(days=timezone.now().weekday())
    snapshot(project, project.criteria.get(name="fluency"), monday, 0.2)
    return project


def test_the_alert_is_stored_pending_and_a_job_emails_it_after_commit(
    low_agreement, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        (alert,) = alerts_raise_for_latest_week(project=low_agreement)
    # Given the alert is stored, nothing is sent before the transaction commits
    assert (alert.delivery, alert.attempts, len(mail.outbox)) == ("pending", 0, 0)
    for callback in callbacks:
        callback()
    alert.refresh_from_db()
    assert alert.delivery == "sent" and alert.sent_at is not None and alert.attempts == 1 and alert.last_error == ""
    (message,) = mail.outbox
    assert message.to == ["lead@example.org"] and "below 0.40" in message.body
    assert message.from_email == "Concord <concord@localhost>"


def test_a_refused_connection_neither_fails_the_recompute_nor_loses_the_alert(
    low_agreement, django_capture_on_commit_callbacks
):
    # Given the mail server refuses connections (the old code failed the recompute job here)
    job = Job.objects.create(project=low_agreement, kind="agreement_recompute")
    with refused_smtp(), django_capture_on_commit_callbacks(execute=True):
        job_run(job.id, lambda job, progress: {"alerts": len(alerts_raise_for_latest_week(project=low_agreement))})
    job.refresh_from_db()
    alert = AgreementAlert.objects.get()
    assert job.state == "success"
    assert alert.delivery == "pending" and alert.attempts >= 1 and "ConnectionRefusedError" in alert.last_error
    assert mail.outbox == []

    # When the server is back, the next recompute raises nothing new, but the sweep sends the stored alert
    with django_capture_on_commit_callbacks(execute=True):
        assert agreement_recompute_run(project_id=low_agreement.id)["alerts"] == 0
    assert mail.outbox == []
    alert_emails_send_pending_job()
    alert.refresh_from_db()
    assert alert.delivery == "sent" and alert.last_error == "" and len(mail.outbox) == 1

    # And another sweep sends nothing again
    alert_emails_send_pending_job()
    assert len(mail.outbox) == 1


def test_one_message_for_the_pending_alerts_and_a_second_send_finds_nothing(low_agreement):
    fluency = low_agreement.criteria.get(name="fluency")
    for kind in ("below_threshold", "drop"):
        AgreementAlert.objects.create(
            project=low_agreement,
            criterion=fluency,
            week_start="2024-01-01",
            kind=kind,
            statistic="alpha",
            value=0.1,
            message=f"fluency: {kind}",
        )
    AgreementAlert.objects.create(
        project=low_agreement,
        criterion=fluency,
        week_start="2023-12-25",
        kind="drop",
        statistic="alpha",
        value=0.1,
        message="sent long ago",
        delivery="sent",
    )
    assert alert_emails_send(project_id=low_agreement.id) == 2
    assert alert_emails_send(project_id=low_agreement.id) == 0
    (message,) = mail.outbox
    assert "fluency: below_threshold" in message.body and "fluency: drop" in message.body
    assert "sent long ago" not in message.body


@pytest.mark.django_db(transaction=True)
def test_a_send_while_another_holds_the_alerts_skips_them(project, lead):
    # Given one job is inside its send, holding the pending alerts' rows
    lead.email = "lead@example.org"
    lead.save()
    AgreementAlert.objects.create(
        project=project, week_start="2024-01-01", kind="drop", statistic="alpha", value=0.1, message="fluency fell"
    )
    locked, release = threading.Event(), threading.Event()

    def first_job():
        try:
            with transaction.atomic():
                list(AgreementAlert.objects.select_for_update().filter(project=project))
                locked.set()
                release.wait(10)
        finally:
            connection.close()

    holder = threading.Thread(target=first_job)
    holder.start()
    try:
        assert locked.wait(10)
        # When a second job sends at the same time, it skips the locked alerts instead of sending them again
        assert alert_emails_send(project_id=project.id) == 0
    finally:
        release.set()
        holder.join(10)
    assert mail.outbox == [] and AgreementAlert.objects.get().delivery == "pending"


def test_with_the_leads_email_off_alerts_are_not_emailed(low_agreement, django_capture_on_commit_callbacks):
    AgreementSettings.objects.create(project=low_agreement, email_leads=False)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        (alert,) = alerts_raise_for_latest_week(project=low_agreement)
    assert alert.delivery == "not_emailed" and callbacks == [] and mail.outbox == []


def test_an_email_turned_off_after_the_alert_stops_its_delivery(low_agreement, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():
        (alert,) = alerts_raise_for_latest_week(project=low_agreement)
    AgreementSettings.objects.filter(project=low_agreement).update(email_leads=False)
    assert alert_emails_send(project_id=low_agreement.id) == 0
    alert.refresh_from_db()
    assert alert.delivery == "not_emailed" and mail.outbox == []


def test_without_a_lead_address_the_alert_waits_and_says_why(
    client, low_agreement, lead, django_capture_on_commit_callbacks
):
    lead.email = ""
    lead.save()
    with django_capture_on_commit_callbacks(execute=True):
        alerts_raise_for_latest_week(project=low_agreement)
    alert = AgreementAlert.objects.get()
    assert alert.delivery == "pending" and alert.last_error == "no lead of the project has an email address"
    # A second lead with an address gets it at the next sweep
    MembershipFactory(project=low_agreement, user=UserFactory(username="lead2", email="two@example.org"), role="lead")
    alert_emails_send_pending_job()
    assert mail.outbox[0].to == ["two@example.org"]


def test_the_dashboard_shows_the_lead_which_alerts_were_not_delivered(
    client, low_agreement, lead, django_capture_on_commit_callbacks
):
    with refused_smtp(), django_capture_on_commit_callbacks(execute=True):
        alerts_raise_for_latest_week(project=low_agreement)
    fluency = low_agreement.criteria.get(name="fluency")
    # 25 delivered alerts of later weeks do not push the undelivered one off the list
    for k in range(25):
        AgreementAlert.objects.create(
            project=low_agreement,
            criterion=fluency,
            week_start=f"2030-{k % 12 + 1:02d}-01",
            kind="drop",
            statistic=f"s{k}",
            value=0.1,
            message=f"later {k}",
            delivery="sent",
            sent_at=timezone.now(),
        )
    client.force_login(lead)
    html = client.get(f"/projects/{low_agreement.id}/agreement/").content.decode()
    assert html.count('data-testid="alert-undelivered"') == 1
    assert "Email not delivered yet</strong> after" in html and "(last error: ConnectionRefusedError" in html
    assert "Emailed to the leads" in html
