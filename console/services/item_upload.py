"""The upload page's item import and its "update existing items" re-upload as background jobs: the file is kept
under MEDIA_ROOT until the job has run annotation's item_import (or item_import_update) on it, with progress the
page can poll at ``/api/v1/jobs/{id}/`` (or, for an update, on its own page)."""

import shutil
import uuid
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from annotation.models import Project
from annotation.services import item_import
from annotation.services.item_changes import item_import_update
from console.selectors.import_errors import import_error_report
from core.import_records import ImportRejected, detect_format
from core.job_queue import queued_job
from core.models import Job
from core.parsers import spool
from core.services.job import job_start

KIND = "item_import"
UPDATE_KIND = "item_update"
IMPORT_JOB = "console.item_upload_import_job"
UPDATE_JOB = "console.item_update_import_job"
UPLOAD_DIR = "imports"


def _upload_path(name: str) -> Path:
    return Path(settings.MEDIA_ROOT) / UPLOAD_DIR / name


def item_upload_start(*, project: Project, upload, created_by, update: bool = False) -> Job:
    """Keeps the uploaded file and starts the import job (``update``: the "update existing items" job) once the
    transaction commits.

    Raises ImportTooLarge past CONCORD_MAX_IMPORT_BYTES (nothing is kept then).
    """
    fmt = detect_format(upload.name, upload.content_type)
    name = f"{uuid.uuid4().hex}.{fmt}"
    path = _upload_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    with spool(upload) as source, open(path, "wb") as target:
        shutil.copyfileobj(source, target)
    try:
        return job_start(
            kind=UPDATE_KIND if update else KIND,
            task=queued_job(UPDATE_JOB if update else IMPORT_JOB),
            project=project,
            created_by=created_by,
            params={"file": name, "format": fmt, "filename": upload.name},
        )
    except Exception:
        path.unlink(missing_ok=True)  # the job could not be queued (it is marked failed): nothing will read it
        raise


def item_upload_import(*, job: Job, progress: Callable[[float, float, str], None] | None = None) -> dict:
    """Runs item_import on the job's file and deletes the file. A rejected file leaves the error report,
    one ``{line, field, problem}`` per bad line, in the job's result before the job fails."""

    def written(done: int, total: int) -> None:
        progress(done, total, f"{done} of {total} items written")

    with _job_file(job) as stream:
        imported = item_import(
            project=job.project,
            stream=stream,
            fmt=job.params["format"],
            progress=written if progress else None,
            by=job.created_by,
            file_name=job.params["filename"],
        )
    return {"imported": imported}


def item_upload_update(*, job: Job, progress: Callable[[float, float, str], None] | None = None) -> dict:
    """Runs item_import_update on the job's file and deletes the file; the result is what changed, line by
    line (UpdateReport.as_dict). A rejected file leaves the error report as item_upload_import does."""

    def checked(done: int, total: int) -> None:
        progress(done, total, f"{done} of {total} lines done")

    with _job_file(job) as stream:
        report = item_import_update(
            project=job.project,
            stream=stream,
            fmt=job.params["format"],
            progress=checked if progress else None,
            by=job.created_by,
            file_name=job.params["filename"],
        )
    return report.as_dict()


@contextmanager
def _job_file(job: Job):
    path = _upload_path(job.params["file"])
    try:
        with open(path, "rb") as stream:
            yield stream
    except ImportRejected as exc:
        Job.objects.filter(pk=job.pk).update(result=import_error_report(exc.report.as_dict()))
        raise
    finally:
        path.unlink(missing_ok=True)
