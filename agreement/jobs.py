"""Celery jobs of the agreement app; each loads by id and calls one service."""

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from agreement.services import (
    agreement_recompute_run,
    agreement_recompute_start,
    alert_emails_enqueue_pending,
    alert_emails_send,
)
from agreement.services.alert_emails import SEND_JOB
from agreement.services.recompute import RECOMPUTE_JOB
from agreement.services.stale_recompute import agreement_recompute_stale_all
from annotation.models import Project
from core.services.job import job_run


# The database may restart under us: retry with backoff. A killed worker leaves the message
# unacknowledged (acks_late), so it is redelivered; the service replaces snapshots atomically.
@shared_task(
    name=RECOMPUTE_JOB,
    bind=True,
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    max_retries=3,
    retry_backoff=True,
    soft_time_limit=1800,
    time_limit=2000,
)
def agreement_recompute_job(self, job_id: int) -> dict:
    """Recompute one project's snapshots for a Job row (on demand from the API or dashboard)."""
    return job_run(job_id, lambda job, progress: agreement_recompute_run(project_id=job.project_id, progress=progress))


@shared_task(acks_late=True)
def agreement_scheduled_recompute_job(project_id: int) -> int:
    """The weekly beat entry of one project (django-celery-beat): a tracked recompute job."""
    project = Project.objects.filter(pk=project_id).first()
    return agreement_recompute_start(project=project, user=None).id if project else 0


@shared_task(acks_late=True)
def agreement_recompute_stale_all_job() -> list[int]:
    """The beat's sweep: a tracked recompute for every project with new judgments whose lead-set interval has
    passed since its last automatic one (agreement.services.stale_recompute)."""
    return agreement_recompute_stale_all()


# OSError covers refused connections and every smtplib error. After the last retry the alerts stay
# pending (with the error on the dashboard) for the sweep below.
@shared_task(
    name=SEND_JOB,
    bind=True,
    acks_late=True,
    ignore_result=True,
    autoretry_for=(OSError, OperationalError, InterfaceError),
    max_retries=settings.CONCORD_ALERT_EMAIL_RETRIES,
    retry_backoff=settings.CONCORD_ALERT_EMAIL_BACKOFF,
    retry_backoff_max=3600,
    retry_jitter=True,
)
def alert_emails_send_job(self, project_id: int) -> int:
    """Email the leads about a project's pending agreement alerts."""
    return alert_emails_send(project_id=project_id)


@shared_task(acks_late=True, ignore_result=True)
def alert_emails_send_pending_job() -> int:
    """The beat's sweep: a send job for every project with alerts still pending."""
    return alert_emails_enqueue_pending()
