"""Automatic recompute of stale agreement: when judgments came in since the last recompute, a tracked
recompute job is started, at most once per the project's ``auto_recompute_minutes``, beside the weekly schedule.

The debounce is a sweep (the beat's ``agreement-stale-recompute`` entry) rather than a job queued by each
submission: the rater loop pays nothing for it, a burst of judgments costs one recompute, and judgments that
came in while the broker was down are still found on the next sweep. "New" is by judgment id, so imported
judgments (whose submission times are in the past) and revisions count too.
"""

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from agreement.models import AgreementSettings
from annotation.models import Judgment, Project
from core.models import Job

from .recompute import agreement_recompute_start

DEFAULT_MINUTES = AgreementSettings._meta.get_field("auto_recompute_minutes").default
MAX_MINUTES = 7 * 24 * 60  # a week: the weekly schedule covers longer intervals


def _stale_projects():
    """Projects (not archived) with judgments above their settings' mark, with their interval and last start."""
    settings = AgreementSettings.objects.filter(project=OuterRef("pk"))
    through = Coalesce(Subquery(settings.values("judgments_seen_through")), Value(0))
    return (
        Project.objects.filter(archived_at__isnull=True)
        .annotate(
            minutes=Coalesce(Subquery(settings.values("auto_recompute_minutes")), Value(DEFAULT_MINUTES)),
            started=Subquery(settings.values("auto_recompute_started_at")),
            through=through,
        )
        .filter(minutes__gt=0)
        .filter(Exists(Judgment.objects.filter(project=OuterRef("pk"), id__gt=OuterRef("through"))))
        .order_by("id")
    )


@transaction.atomic
def agreement_recompute_if_stale(*, project: Project, now: datetime | None = None) -> Job | None:
    """Starts a recompute of the project if judgments came in since the last one and its interval has passed
    since the last automatic start; returns the job, or None. The settings row is locked, so two sweeps
    never both start one."""
    now = now or timezone.now()
    AgreementSettings.objects.get_or_create(project=project)
    settings = AgreementSettings.objects.select_for_update().get(project=project)
    if settings.auto_recompute_minutes == 0:
        return None
    if settings.auto_recompute_started_at and now - settings.auto_recompute_started_at < timedelta(
        minutes=settings.auto_recompute_minutes
    ):
        return None
    if not Judgment.objects.filter(project=project, id__gt=settings.judgments_seen_through).exists():
        return None
    settings.auto_recompute_started_at = now
    settings.save(update_fields=["auto_recompute_started_at"])
    return agreement_recompute_start(project=project, user=None)


def agreement_recompute_stale_all(*, now: datetime | None = None) -> list[int]:
    """The sweep: a recompute for every stale project whose interval has passed; returns their ids."""
    now = now or timezone.now()
    started = []
    for project in _stale_projects():
        due = project.started is None or now - project.started >= timedelta(minutes=project.minutes)
        if due and agreement_recompute_if_stale(project=project, now=now) is not None:
            started.append(project.pk)
    return started
