"""A recompute as a tracked background job: snapshots, then alerts."""
from collections.abc import Callable

from annotation.models import Job, Project
from annotation.services.job import job_start

from .alerts import alerts_raise_for_latest_week
from .snapshots import snapshot_compute_for_project

RECOMPUTE_KIND = "agreement_recompute"


def agreement_recompute_start(*, project: Project, user) -> Job:
    from agreement.jobs import agreement_recompute_job

    return job_start(kind=RECOMPUTE_KIND, task=agreement_recompute_job, project=project, created_by=user)


def agreement_recompute_run(*, project_id: int, progress: Callable[[int, int], None] | None = None) -> dict:
    summary = snapshot_compute_for_project(project_id=project_id, progress=progress)
    summary["alerts"] = len(alerts_raise_for_latest_week(project=Project.objects.get(pk=project_id)))
    return summary
