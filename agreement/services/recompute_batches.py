"""A recompute split into batches of weeks that Celery workers compute side by side, as a chord: each batch
writes its rows into the snapshot table under the recompute's new generation, which readers do not see, and the
chord's last step makes that generation current by updating one row (agreement.services.generations), so readers
see the old snapshots or the new ones, never a mix, and a failed batch leaves the old ones in place (its
generation's rows are deleted). The rows of the generation replaced are deleted after the job has finished. How
the weeks are split: agreement.engine.batches.

Every batch reads the judgments the plan saw (ids up to the mark taken when it was made), so batches
starting at different moments still describe the same judgments. In eager mode (no broker) the chord runs
its batches one after the other in the process that queued it.
"""

from bisect import bisect_left
from dataclasses import dataclass
from datetime import date

from celery import chord
from django.conf import settings
from django.db import transaction

from agreement.engine.batches import week_batches
from agreement.models import AgreementSnapshot
from agreement.selectors.judgment_records import judgment_records_for_project, judgment_week_sizes
from annotation.models import Project
from annotation.task_types import REGISTRY
from core.bulk_insert import refresh_planner_statistics
from core.job_queue import queued_job
from core.models import Job
from core.services.job import job_advance, job_failed, job_running, job_succeeded

from .alerts import alerts_raise_for_latest_week
from .generations import (
    snapshot_generation_discard,
    snapshot_generation_make_current,
    snapshot_generation_new,
    snapshot_generations_prune,
    snapshot_rows_write,
)
from .recompute import judgments_seen_mark, judgments_seen_record
from .snapshots import snapshot_rows_compute

BATCH_JOB = "agreement.jobs.agreement_recompute_batch_job"
SWAP_JOB = "agreement.jobs.agreement_recompute_swap_job"
DISCARD_JOB = "agreement.jobs.agreement_recompute_discard_job"
SUMMED = ("snapshots", "judgments", "weeks", "off_scale")


@dataclass(frozen=True)
class RecomputeBatch:
    """The windows of weeks ``first_week`` (None: from the first) to before ``before_week`` (None: to the last)."""

    index: int
    first_week: date | None
    before_week: date | None


def recompute_batches_plan(*, project: Project, through: int, n_batches: int) -> list[RecomputeBatch]:
    """At most ``n_batches`` batches, balanced by the judgments (ids up to ``through``) of each week; one for a
    project without judgments, which clears its snapshots."""
    sizes = judgment_week_sizes(project, through=through)
    weeks = [week for week, _ in sizes]
    ranges = week_batches([n for _, n in sizes], n_batches)
    if not ranges:
        return [RecomputeBatch(0, None, None)]
    return [
        RecomputeBatch(k, weeks[r.start] if k else None, weeks[r.stop] if r.stop < len(weeks) else None)
        for k, r in enumerate(ranges)
    ]


def _iso(day: date | None) -> str | None:
    return None if day is None else day.isoformat()


def _day(text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(text)


def agreement_recompute_dispatch(*, job_id: int) -> None:
    """Plans a recompute job's batches under a new generation and queues them as a chord, which finishes the job
    (with ``recompute_batches_swap``) or fails it (with ``recompute_batches_discard``). If queuing fails, or a
    batch fails in eager mode, the job fails here and the error propagates."""
    job = Job.objects.select_related("project").get(pk=job_id)
    job_running(job_id)
    generation = None
    try:
        generation = snapshot_generation_new(project_id=job.project_id)
        through = judgments_seen_mark(project_id=job.project_id)
        batches = recompute_batches_plan(
            project=job.project, through=through, n_batches=settings.CONCORD_RECOMPUTE_BATCHES
        )
        header = [
            queued_job(BATCH_JOB).si(job_id, generation, len(batches), _iso(b.first_week), _iso(b.before_week), through)
            for b in batches
        ]
        # the error callback runs once every batch has returned, so no batch writes rows after it
        body = queued_job(SWAP_JOB).s(job_id, generation, through)
        chord(header, body.on_error(queued_job(DISCARD_JOB).si(job_id, generation))).apply_async()
    except Exception as exc:
        recompute_batches_discard(job_id=job_id, generation=generation, exc=exc)
        raise


def recompute_batch_write(
    *,
    job_id: int,
    generation: int,
    n_batches: int,
    first_week: str | None,
    before_week: str | None,
    through: int,
) -> dict:
    """Computes one batch's rows and writes them under the recompute's generation, replacing any it wrote
    before (a redelivered batch: its rows are those of its weeks); returns its counts."""
    project = Project.objects.get(pk=Job.objects.values_list("project_id", flat=True).get(pk=job_id))
    first, before = _day(first_week), _day(before_week)
    # pairs implied by a best–worst screen are read whole, then cut, as a screen's judgments may span weeks
    implied = REGISTRY[project.task_type].agreement.implied_pairs
    records = judgment_records_for_project(project, before=None if implied else before, through=through)
    start = 0 if first is None else bisect_left(records.weeks, first)
    stop = None if before is None else bisect_left(records.weeks, before)
    builder, off_scale = snapshot_rows_compute(project, records, first_week=start, stop_week=stop)
    written = AgreementSnapshot.all_generations.filter(project=project, generation=generation)
    if first is not None:
        written = written.filter(week_start__gte=first)
    if before is not None:
        written = written.filter(week_start__lt=before)
    with transaction.atomic():
        written.delete()
        snapshot_rows_write(generation=generation, rows=builder.rows)
    job_advance(job_id, 1 / n_batches)
    stop = len(records.weeks) if stop is None else stop
    in_weeks = int(((records.week_index >= start) & (records.week_index < stop)).sum())
    return {
        "snapshots": len(builder.rows),
        "judgments": in_weeks - off_scale,
        "weeks": stop - start,
        "off_scale": off_scale,
    }


def recompute_batches_swap(*, job_id: int, generation: int, through: int, summaries: list[dict]) -> dict:
    """Once every batch has written its rows: makes the recompute's generation the one readers see (one row's
    update), raises the alerts, marks the judgments read as seen and finishes the job; then deletes the rows of
    the generations it replaced. A failure before the job succeeds fails it and deletes the generation's rows
    (unless it became current). A recompute started later and finished first keeps its rows current: this one's
    go."""
    job = Job.objects.select_related("project").get(pk=job_id)
    try:
        snapshot_generation_make_current(project_id=job.project_id, generation=generation)
        summary = {name: sum(s[name] for s in summaries) for name in SUMMED}
        summary["alerts"] = len(alerts_raise_for_latest_week(project=job.project))
        judgments_seen_record(project_id=job.project_id, through=through)
    except Exception as exc:
        recompute_batches_discard(job_id=job_id, generation=generation, exc=exc)
        raise
    job_succeeded(job_id, summary)
    snapshot_generations_prune(project_id=job.project_id)
    refresh_planner_statistics(AgreementSnapshot)  # the dashboard's reads were planned on the table before
    return summary


def recompute_batches_discard(*, job_id: int, generation: int | None, exc: BaseException | None = None) -> None:
    """Deletes the rows a failed recompute wrote under ``generation`` (None: it had none yet) and fails its job
    with ``exc`` (None: keeps the error a failed batch recorded); a job that succeeded (a second delivery of its
    last step failing) stays so."""
    project_id = Job.objects.values_list("project_id", flat=True).get(pk=job_id)
    if generation is not None:
        snapshot_generation_discard(project_id=project_id, generation=generation)
    state = Job.objects.values_list("state", flat=True).get(pk=job_id)
    if state != Job.State.SUCCESS and (exc is not None or state != Job.State.FAILURE):
        job_failed(job_id, exc or RuntimeError("a batch of the recompute failed"))
