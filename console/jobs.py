"""Celery jobs of the lead console (thin: load by id, run one service under job_run)."""

from celery import shared_task


@shared_task(name="console.item_upload_import_job")
def item_upload_import_job(job_id: int) -> dict:
    from annotation.services.job import job_run
    from console.services.item_upload import item_upload_import

    return job_run(job_id, lambda job, progress: item_upload_import(job=job, progress=progress))


@shared_task(name="console.item_update_import_job")
def item_update_import_job(job_id: int) -> dict:
    from annotation.services.job import job_run
    from console.services.item_upload import item_upload_update

    return job_run(job_id, lambda job, progress: item_upload_update(job=job, progress=progress))
