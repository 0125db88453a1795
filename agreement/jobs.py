"""Celery jobs of the agreement app; each loads by id and calls one service."""
from celery import shared_task
from django.db import InterfaceError, OperationalError


# The database may restart under us: retry with backoff. A killed worker leaves the message
# unacknowledged (acks_late), so it is redelivered; the service replaces snapshots atomically.
@shared_task(bind=True, acks_late=True, autoretry_for=(OperationalError, InterfaceError), max_retries=3,
             retry_backoff=True, soft_time_limit=1800, time_limit=2000)
def agreement_recompute_job(self, job_id: int) -> dict:
    """Recompute one project's snapshots for a Job row (on demand from the API or dashboard)."""
    from agreement.services.snapshots import snapshot_compute_for_project
    from annotation.services.job import job_run

    return job_run(job_id, lambda job, progress: snapshot_compute_for_project(project_id=job.project_id,
                                                                             progress=progress))
