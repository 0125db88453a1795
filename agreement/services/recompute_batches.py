"""A recompute split into batches of weeks that Celery workers compute side by side, as a chord: each batch
stages its rows (AgreementSnapshotStaging), and the chord's last step swaps them in for the project's
snapshots in one transaction, so readers see the old snapshots or the new ones, never a mix, and a failed
batch leaves the old ones in place. How the weeks are split: agreement.engine.batches.

A recompute in one batch (``CONCORD_RECOMPUTE_BATCHES=1``) stages nothing: its batch replaces the snapshots in
its own transaction, as the recompute did in one task, since staging costs about another write.

Every batch reads the judgments the plan saw (ids up to the mark taken when it was made), so batches
starting at different moments still describe the same judgments. In eager mode (no broker) the chord runs
its batches one after the other in the process that queued it.
"""

from bisect import bisect_left
from dataclasses import dataclass
from datetime import date

from celery import chord
from django.conf import settings
from django.db import connection, transaction

from agreement.engine.batches import week_batches
from agreement.engine.rows import SNAPSHOT_FIELDS
from agreement.models import AgreementSnapshot, AgreementSnapshotStaging
from agreement.selectors.judgment_records import judgment_records_for_project, judgment_week_sizes
from annotation.models import Project
from annotation.task_types import REGISTRY
from core.bulk_insert import insert_rows, refresh_planner_statistics
from core.job_queue import queued_job
from core.models import Job
from core.services.job import job_advance, job_failed, job_running, job_succeeded

from .alerts import alerts_raise_for_latest_week
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
    """Plans a recompute job's batches and queues them as a chord, which finishes the job (with
    ``recompute_batches_swap``) or fails it (with ``recompute_batches_discard``). If queuing fails, or a batch
    fails in eager mode, the job fails here and the error propagates."""
    job = Job.objects.select_related("project").get(pk=job_id)
    job_running(job_id)
    try:
        through = judgments_seen_mark(project_id=job.project_id)
        batches = recompute_batches_plan(
            project=job.project, through=through, n_batches=settings.CONCORD_RECOMPUTE_BATCHES
        )
        header = [
            queued_job(BATCH_JOB).si(job_id, b.index, len(batches), _iso(b.first_week), _iso(b.before_week), through)
            for b in batches
        ]
        # the error callback runs once every batch has returned, so no batch stages rows after it
        body = queued_job(SWAP_JOB).s(job_id, through).on_error(queued_job(DISCARD_JOB).si(job_id))
        chord(header, body).apply_async()
    except Exception as exc:
        recompute_batches_discard(job_id=job_id, exc=exc)
        raise


def recompute_batch_stage(
    *, job_id: int, batch: int, n_batches: int, first_week: str | None, before_week: str | None, through: int
) -> dict:
    """Computes one batch's rows and stages them, replacing any it staged before (a redelivered batch);
    returns its counts."""
    project = Project.objects.get(pk=Job.objects.values_list("project_id", flat=True).get(pk=job_id))
    before = _day(before_week)
    # pairs implied by a best–worst screen are read whole, then cut, as a screen's judgments may span weeks
    implied = REGISTRY[project.task_type].agreement.implied_pairs
    records = judgment_records_for_project(project, before=None if implied else before, through=through)
    first = 0 if first_week is None else bisect_left(records.weeks, date.fromisoformat(first_week))
    stop = None if before is None else bisect_left(records.weeks, before)
    builder, off_scale = snapshot_rows_compute(project, records, first_week=first, stop_week=stop)
    if n_batches == 1:  # the whole recompute: its rows replace the snapshots at once, as staging them would
        with transaction.atomic():
            Project.objects.select_for_update().filter(pk=project.pk).first()
            AgreementSnapshot.objects.filter(project=project).delete()
            insert_rows(AgreementSnapshot, SNAPSHOT_FIELDS, builder.rows)
    else:
        with transaction.atomic():
            AgreementSnapshotStaging.objects.filter(job_id=job_id, batch=batch).delete()
            insert_rows(
                AgreementSnapshotStaging,
                ["job", "batch", *SNAPSHOT_FIELDS],
                [(job_id, batch, *r) for r in builder.rows],
            )
    job_advance(job_id, 1 / n_batches)
    stop = len(records.weeks) if stop is None else stop
    in_weeks = int(((records.week_index >= first) & (records.week_index < stop)).sum())
    return {
        "staged": n_batches > 1,
        "snapshots": len(builder.rows),
        "judgments": in_weeks - off_scale,
        "weeks": stop - first,
        "off_scale": off_scale,
    }


def recompute_batches_swap(*, job_id: int, through: int, summaries: list[dict]) -> dict:
    """Replaces the project's snapshots with the rows its batches staged, in one transaction (the project's row
    locked, so two recomputes' swaps take turns), raises the alerts, marks the judgments read as seen and
    finishes the job. A failure fails the job and discards the staged rows. A recompute in one batch staged
    nothing: its batch replaced the snapshots."""
    job = Job.objects.select_related("project").get(pk=job_id)
    try:
        if any(s["staged"] for s in summaries):
            _swap_in(job, expected=sum(s["snapshots"] for s in summaries))
        refresh_planner_statistics(AgreementSnapshot)  # the dashboard's reads were planned as if on an empty table
        summary = {name: sum(s[name] for s in summaries) for name in SUMMED}
        summary["alerts"] = len(alerts_raise_for_latest_week(project=job.project))
        judgments_seen_record(project_id=job.project_id, through=through)
    except Exception as exc:
        recompute_batches_discard(job_id=job_id, exc=exc)
        raise
    job_succeeded(job_id, summary)
    return summary


def _swap_in(job: Job, *, expected: int) -> None:
    columns = ", ".join(connection.ops.quote_name(AgreementSnapshot._meta.get_field(f).column) for f in SNAPSHOT_FIELDS)
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=job.project_id).first()
        AgreementSnapshot.objects.filter(project_id=job.project_id).delete()
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {AgreementSnapshot._meta.db_table} ({columns}) "
                f"SELECT {columns} FROM {AgreementSnapshotStaging._meta.db_table} WHERE job_id = %s",
                [job.id],
            )
            staged = cursor.rowcount
        if staged != expected:  # a batch restaged twice at once, or the rows were swapped in before
            raise RuntimeError(f"{staged} rows staged, not the {expected} computed")
        AgreementSnapshotStaging.objects.filter(job_id=job.id).delete()


def recompute_batches_discard(*, job_id: int, exc: BaseException | None = None) -> None:
    """Deletes a failed recompute's staged rows and fails its job with ``exc`` (None: keeps the error a failed
    batch recorded); a job that succeeded (a second delivery of its last step failing) stays so."""
    AgreementSnapshotStaging.objects.filter(job_id=job_id).delete()
    state = Job.objects.values_list("state", flat=True).get(pk=job_id)
    if state != Job.State.SUCCESS and (exc is not None or state != Job.State.FAILURE):
        job_failed(job_id, exc or RuntimeError("a batch of the recompute failed"))
