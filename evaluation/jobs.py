"""Celery tasks of the evaluation app: load by id, run one service under job_run for progress."""

from celery import shared_task

from annotation.services.job import job_run
from evaluation.services import metrics_compute
from evaluation.services.export import EXPORT_JOB, export_run
from evaluation.services.metrics_compute import METRICS_JOB


@shared_task(name=METRICS_JOB)
def metrics_compute_job(job_id: int) -> dict:
    return job_run(
        job_id,
        lambda job, progress: metrics_compute(
            project=job.project, names=job.params.get("metrics"), progress=progress
        ),
    )


# An export of a million judgments takes under a minute; the limits leave room for slower disks.
@shared_task(name=EXPORT_JOB, acks_late=True, soft_time_limit=1800, time_limit=2000)
def export_run_job(job_id: int) -> dict:
    return job_run(
        job_id, lambda job, progress: export_run(export_id=job.params["export_id"], progress=progress)
    )
