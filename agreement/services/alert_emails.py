"""The leads' email about agreement alerts: the alert is stored first, a job sends it (with retries),
a periodic sweep sends what is still pending, and no alert is emailed twice."""

from django.core.mail import send_mail
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from agreement.models import AgreementAlert, AgreementSettings
from annotation.models import Membership, Project
from core.job_queue import queued_job

PENDING = AgreementAlert.Delivery.PENDING
NO_RECIPIENT = "no lead of the project has an email address"
SEND_JOB = "agreement.jobs.alert_emails_send_job"


def alert_emails_enqueue(*, project_id: int) -> None:
    """Sends the project's pending alerts from a job once the transaction commits.

    ``robust``: a broker that is down must not undo or fail the recompute that stored the alerts; the
    error is logged, the alerts stay pending on the dashboard, and the sweep sends them later."""
    transaction.on_commit(lambda: queued_job(SEND_JOB).delay(project_id), robust=True)


def alert_emails_send(*, project_id: int) -> int:
    """Emails the leads one message with the project's pending alerts and marks them sent; answers how many.

    The alerts' rows stay locked until they are marked sent, so a second job at the same time skips them
    (``skip_locked``) and one that comes later finds them sent: an alert is emailed once (twice only if the
    process dies between the server's acceptance and the commit, the one window no lock can close). A failed
    send records the attempt and the error on each alert, and is raised again for the job to retry."""
    project = Project.objects.get(pk=project_id)
    ids: list[int] = []
    try:
        with transaction.atomic():
            alerts = list(
                AgreementAlert.objects.select_for_update(skip_locked=True)
                .filter(project=project, delivery=PENDING)
                .order_by("week_start", "id")
            )
            ids = [a.pk for a in alerts]
            if not alerts:
                return 0
            if AgreementSettings.objects.filter(project=project, email_leads=False).exists():  # turned off since raised
                AgreementAlert.objects.filter(pk__in=ids).update(delivery=AgreementAlert.Delivery.NOT_EMAILED)
                return 0
            recipients = _lead_emails(project)
            if not recipients:  # pending until a lead gives an address; the dashboard says why
                AgreementAlert.objects.filter(pk__in=ids).update(last_error=NO_RECIPIENT)
                return 0
            body = "\n".join(f"- week of {a.week_start}: {a.message}" for a in alerts)
            send_mail(
                f"[Concord] Agreement alert in {' '.join(project.name.split())}",  # a header holds no newline
                f"Agreement alerts in {project.name}:\n{body}\n",
                None,  # DEFAULT_FROM_EMAIL
                recipients,
            )
            now = timezone.now()
            AgreementAlert.objects.filter(pk__in=ids).update(
                delivery=AgreementAlert.Delivery.SENT, sent_at=now, last_attempt_at=now,
                attempts=F("attempts") + 1, last_error="",
            )  # fmt: skip
        return len(ids)
    except Exception as exc:
        AgreementAlert.objects.filter(pk__in=ids, delivery=PENDING).update(
            attempts=F("attempts") + 1, last_attempt_at=timezone.now(), last_error=_error_text(exc)
        )
        raise


def alert_emails_enqueue_pending() -> int:
    """One send job per project with alerts still pending; answers how many projects."""
    project_ids = list(AgreementAlert.objects.filter(delivery=PENDING).values_list("project_id", flat=True).distinct())
    for project_id in project_ids:
        queued_job(SEND_JOB).delay(project_id)
    return len(project_ids)


def _lead_emails(project: Project) -> list[str]:
    return sorted(
        e
        for e in Membership.objects.filter(project=project, role=Membership.Role.LEAD).values_list(
            "user__email", flat=True
        )
        if e
    )


def _error_text(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]
