"""Celery jobs of the agreement app; each loads by id and calls one service."""

from celery import Task, shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from agreement.services import (
    agreement_recompute_start,
    alert_emails_enqueue_pending,
    alert_emails_send,
)
from agreement.services.alert_emails import SEND_JOB
from agreement.services.recompute import RECOMPUTE_JOB
from agreement.services.recompute_batches import (
    BATCH_JOB,
    DISCARD_JOB,
    SWAP_JOB,
    agreement_recompute_dispatch,
    recompute_batch_write,
    recompute_batches_discard,
    recompute_batches_swap,
)
from agreement.services.stale_recompute import agreement_recompute_stale_all
from annotation.models import Project

# The database may restart under us: retry with backoff. A killed worker leaves the message
# unacknowledged (acks_late), so it is redelivered; the service replaces snapshots atomically.
COMPUTING = {
    "acks_late": True,
    "autoretry_for": (OperationalError, InterfaceError),
    "max_retries": 3,
    "retry_backoff": True,
    "soft_time_limit": 1800,
    "time_limit": 2000,
}


@shared_task(name=RECOMPUTE_JOB, bind=True, **COMPUTING)
def agreement_recompute_job(self, job_id: int) -> None:
    """Recompute one project's snapshots for a Job row (on demand from the API or dashboard): queues its batches,
    whose last step finishes the job."""
    agreement_recompute_dispatch(job_id=job_id)


class _RecomputeBatchTask(Task):
    def on_failure(self, exc, task_id, args, kwargs, einfo):
        """After the last retry: the job fails at once; the chord's error callback deletes the generation's rows
        again once every batch has stopped."""
        recompute_batches_discard(job_id=args[0], generation=args[1], exc=exc)


@shared_task(name=BATCH_JOB, base=_RecomputeBatchTask, **COMPUTING)
def agreement_recompute_batch_job(
    job_id: int,
    generation: int,
    n_batches: int,
    first_week: str | None,
    before_week: str | None,
    through: int,
) -> dict:
    """One batch of weeks of a recompute: its rows, written under the recompute's generation."""
    return recompute_batch_write(
        job_id=job_id,
        generation=generation,
        n_batches=n_batches,
        first_week=first_week,
        before_week=before_week,
        through=through,
    )


@shared_task(name=SWAP_JOB, acks_late=True, autoretry_for=(OperationalError, InterfaceError), max_retries=3)
def agreement_recompute_swap_job(summaries: list[dict], job_id: int, generation: int, through: int) -> dict:
    """A recompute's last step, once every batch has written its rows: their generation becomes the one readers
    see."""
    return recompute_batches_swap(job_id=job_id, generation=generation, through=through, summaries=summaries)


@shared_task(name=DISCARD_JOB, acks_late=True)
def agreement_recompute_discard_job(job_id: int, generation: int) -> None:
    """The chord's error callback: a batch failed, the rows of the recompute's generation go."""
    recompute_batches_discard(job_id=job_id, generation=generation)


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
