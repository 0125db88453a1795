"""A recompute as a tracked background job: snapshots, then alerts."""
from collections.abc import Callable

from django.db import transaction

from annotation.models import Job, Project
from annotation.services.job import job_start
from audit.services import audit_record

from .alerts import alerts_raise_for_latest_week
from .snapshots import snapshot_compute_for_project

RECOMPUTE_KIND = "agreement_recompute"


@transaction.atomic
def agreement_recompute_start(*, project: Project, user) -> Job:
    """Queues a recompute; one ``user`` asked for (None for the weekly schedule) goes to the audit log."""
    from agreement.jobs import agreement_recompute_job

    job = job_start(kind=RECOMPUTE_KIND, task=agreement_recompute_job, project=project, created_by=user)
    if user is not None:
        audit_record(actor=user, action="agreement.recompute", project=project, target=f"job {job.id}",
                     detail={"job_id": job.id})
    return job


def agreement_recompute_run(*, project_id: int, progress: Callable[[int, int], None] | None = None) -> dict:
    summary = snapshot_compute_for_project(project_id=project_id, progress=progress)
    summary["alerts"] = len(alerts_raise_for_latest_week(project=Project.objects.get(pk=project_id)))
    return summary
