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


# An export of a million judgments takes under a minute; the limits leave room for slower disks.
@shared_task(name="evaluation.export_run", acks_late=True, soft_time_limit=1800, time_limit=2000)
def export_run_job(job_id: int) -> dict:
    from annotation.services.job import job_run
    from evaluation.services.export import export_run

    return job_run(
        job_id, lambda job, progress: export_run(export_id=job.params["export_id"], progress=progress)
    )


# Ten million votes take a few minutes on two busy cores; the limits leave room for slower disks.
@shared_task(name="evaluation.vote_import", acks_late=True, soft_time_limit=3600, time_limit=3700)
def vote_import_job(job_id: int) -> dict:
    from annotation.services.job import job_run
    from evaluation.services.vote_import import vote_import_run

    return job_run(job_id, lambda job, progress: vote_import_run(job=job, progress=progress))
