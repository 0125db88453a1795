"""Celery tasks of the evaluation app: load by id, run one service under job_run for progress."""

from celery import shared_task


@shared_task(name="evaluation.metrics_compute")
def metrics_compute_job(job_id: int) -> dict:
    from annotation.services.job import job_run
    from evaluation.services import metrics_compute

    return job_run(
        job_id,
        lambda job, progress: metrics_compute(
            project=job.project, names=job.params.get("metrics"), progress=progress
        ),
    )
