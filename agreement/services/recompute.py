"""A recompute as a tracked background job: snapshots, then alerts."""

from collections.abc import Callable
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from agreement.models import AgreementSettings
from annotation.models import Judgment, Project
from audit.services import audit_record
from core.job_queue import queued_job
from core.models import Job
from core.services.job import job_start

from .alerts import alerts_raise_for_latest_week
from .snapshots import snapshot_compute_for_project

RECOMPUTE_KIND = "agreement_recompute"
RECOMPUTE_JOB = "agreement.jobs.agreement_recompute_job"


# A recompute job pending or running for longer than this is taken for lost (its worker killed mid-way): the
# next request queues a new one. The batches' time limits (agreement.jobs) are well below it.
RECOMPUTE_LOST_AFTER = timedelta(hours=2)


def recompute_active(project: Project) -> Job | None:
    """The project's recompute job still pending or running, if any."""
    return (
        Job.objects.filter(
            project=project,
            kind=RECOMPUTE_KIND,
            state__in=[Job.State.PENDING, Job.State.RUNNING],
            created_at__gte=timezone.now() - RECOMPUTE_LOST_AFTER,
        )
        .order_by("-id")
        .first()
    )


@transaction.atomic
def agreement_recompute_start(*, project: Project, user) -> Job:
    """Queues a recompute, or returns the project's recompute still pending or running: requests made while one
    runs share it, rather than race it (the project's row is locked while looking). One ``user`` asked for (None
    for the weekly schedule) goes to the audit log."""
    Project.objects.select_for_update().filter(pk=project.pk).first()
    job = recompute_active(project) or job_start(
        kind=RECOMPUTE_KIND, task=queued_job(RECOMPUTE_JOB), project=project, created_by=user
    )
    if user is not None:
        audit_record(
            actor=user, action="agreement.recompute", project=project, target=f"job {job.id}", detail={"job_id": job.id}
        )
    return job


def judgments_seen_mark(*, project_id: int) -> int:
    """The highest judgment id of the project now: a recompute that starts reading after this call has
    seen every judgment up to it."""
    last = Judgment.objects.filter(project_id=project_id).order_by("-id").values_list("id", flat=True).first()
    return last or 0


def judgments_seen_record(*, project_id: int, through: int) -> None:
    """Records that a finished recompute read every judgment up to id ``through`` (never moving it back)."""
    settings, _ = AgreementSettings.objects.get_or_create(project_id=project_id)
    AgreementSettings.objects.filter(pk=settings.pk, judgments_seen_through__lt=through).update(
        judgments_seen_through=through
    )


def agreement_recompute_run(*, project_id: int, progress: Callable[[int, int], None] | None = None) -> dict:
    """Recomputes the snapshots and raises the alerts; then judgments up to the ones it read count as seen
    (agreement.services.stale_recompute reads the mark)."""
    through = judgments_seen_mark(project_id=project_id)
    summary = snapshot_compute_for_project(project_id=project_id, progress=progress)
    summary["alerts"] = len(alerts_raise_for_latest_week(project=Project.objects.get(pk=project_id)))
    judgments_seen_record(project_id=project_id, through=through)
    return summary
