"""Celery jobs of the lead console (thin: load by id, run one service under job_run)."""

from celery import shared_task

from console.services.item_upload import IMPORT_JOB, UPDATE_JOB, item_upload_import, item_upload_update
from core.services.job import job_run


@shared_task(name=IMPORT_JOB)
def item_upload_import_job(job_id: int) -> dict:
    return job_run(job_id, lambda job, progress: item_upload_import(job=job, progress=progress))


@shared_task(name=UPDATE_JOB)
def item_update_import_job(job_id: int) -> dict:
    return job_run(job_id, lambda job, progress: item_upload_update(job=job, progress=progress))
