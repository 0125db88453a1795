"""Rater models as a stored result: a job fits them (``rater_models_compute``) and keeps the report with the time
and the judgments it saw; pages and the API read it (``rater_models_stored``), stale as soon as judgments come,
go or are excluded, and the lead starts a recompute (``rater_models_recompute_start``)."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from annotation.models import Project
from audit.services import audit_record
from core.job_queue import queued_job
from core.models import Job
from core.services.job import job_start
from evaluation.models import RaterModelsResult
from evaluation.selectors.judgment_mark import judgment_mark

from .rater_models import rater_models_report

JOB_KIND = "rater_models"
RATER_MODELS_JOB = "evaluation.rater_models"


@dataclass(frozen=True)
class StoredRaterModels:
    """The stored report (None before the first computation) with what it saw against the judgments now, and
    the latest rater-models job of the project for this seed (None if never started)."""

    report: dict | None
    computed_at: datetime | None
    n_judgments_seen: int | None
    n_judgments_now: int
    stale: bool
    job: Job | None


def rater_models_compute(
    *, project: Project, seed: int = 0, progress: Callable[[float, float, str], None] | None = None
) -> RaterModelsResult:
    """Fits the rater models of every criterion and stores the report in place of the last one for ``seed``."""
    mark = judgment_mark(project)  # read first: judgments arriving meanwhile make it stale
    n_judgments, through, excluded = mark.n_judgments, mark.through, list(mark.excluded)
    report = rater_models_report(project=project, seed=seed, progress=progress)
    result, _ = RaterModelsResult.objects.update_or_create(
        project=project,
        seed=seed,
        defaults={
            "report": report,
            "computed_at": timezone.now(),
            "n_judgments": n_judgments,
            "judgments_through": through,
            "excluded_raters": excluded,
        },
    )
    return result


@transaction.atomic
def rater_models_recompute_start(*, project: Project, user=None, seed: int = 0) -> Job:
    """Starts the job that recomputes the rater models (Celery, after commit); returns the Job row."""
    job = job_start(
        kind=JOB_KIND, task=queued_job(RATER_MODELS_JOB), project=project, created_by=user, params={"seed": seed}
    )
    audit_record(
        actor=user, action="rater_models.recompute", project=project, target=f"job {job.id}", detail={"seed": seed}
    )
    return job


def rater_models_stored(*, project: Project, seed: int = 0, criterion: str | None = None) -> StoredRaterModels:
    """The stored rater models (of the one ``criterion`` when named; ValueError for an unknown one)."""
    result = RaterModelsResult.objects.filter(project=project, seed=seed).first()
    mark = judgment_mark(project)
    n_now, through, excluded = mark.n_judgments, mark.through, list(mark.excluded)
    job = Job.objects.filter(project=project, kind=JOB_KIND, params__seed=seed).order_by("-id").first()
    if criterion is not None and not project.criteria.filter(name=criterion).exists():
        raise ValueError(f"unknown criterion {criterion!r}")
    if result is None:
        return StoredRaterModels(None, None, None, n_now, True, job)
    report = result.report
    if criterion is not None:
        report = report | {"criteria": [c for c in report["criteria"] if c["criterion"] == criterion]}
    stale = (result.n_judgments, result.judgments_through, result.excluded_raters) != (n_now, through, excluded)
    return StoredRaterModels(report, result.computed_at, result.n_judgments, n_now, stale, job)
