"""The upload page's item import as a background job: the file is kept under MEDIA_ROOT until the job has
run annotation's item_import on it, with progress the page can poll at ``/api/v1/jobs/{id}/``."""
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from annotation.models import Job, Project
from annotation.parsers import spool
from annotation.services import ImportRejected, detect_format, item_import
from annotation.services.job import job_start
from console.selectors.import_errors import import_error_report

KIND = "item_import"
UPLOAD_DIR = "imports"


def _upload_path(name: str) -> Path:
    return Path(settings.MEDIA_ROOT) / UPLOAD_DIR / name


def item_upload_start(*, project: Project, upload, created_by) -> Job:
    """Keeps the uploaded file and starts the import job once the transaction commits.

    Raises ImportTooLarge past CONCORD_MAX_IMPORT_BYTES (nothing is kept then).
    """
    from console.jobs import item_upload_import_job

    fmt = detect_format(upload.name, upload.content_type)
    name = f"{uuid.uuid4().hex}.{fmt}"
    path = _upload_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    with spool(upload) as source, open(path, "wb") as target:
        shutil.copyfileobj(source, target)
    try:
        return job_start(kind=KIND, task=item_upload_import_job, project=project, created_by=created_by,
                         params={"file": name, "format": fmt, "filename": upload.name})
    except Exception:
        path.unlink(missing_ok=True)  # the job could not be queued (it is marked failed): nothing will read it
        raise


def item_upload_import(*, job: Job, progress: Callable[[float, float, str], None] | None = None) -> dict:
    """Runs item_import on the job's file and deletes the file. A rejected file leaves the error report,
    one ``{line, field, problem}`` per bad line, in the job's result before the job fails."""
    path = _upload_path(job.params["file"])

    def written(done: int, total: int) -> None:
        progress(done, total, f"{done} of {total} items written")

    try:
        with open(path, "rb") as stream:
            imported = item_import(project=job.project, stream=stream, fmt=job.params["format"],
                                   progress=written if progress else None, by=job.created_by,
                                   file_name=job.params["filename"])
    except ImportRejected as exc:
        Job.objects.filter(pk=job.pk).update(result=import_error_report(exc.report.as_dict()))
        raise
    finally:
        path.unlink(missing_ok=True)
    return {"imported": imported}
