"""Recompute a project's agreement snapshots: every ISO week (and cumulative to it) × scope ×
statistic, from judgments read in bulk, written under a new generation that becomes current at once, so a
crash mid-way leaves the last good snapshots in place."""

from collections.abc import Callable

import numpy as np
from django.utils import timezone
from threadpoolctl import threadpool_limits

from agreement.engine.compute import agreement_rows
from agreement.engine.rows import RowBuilder
from agreement.engine.statistics import plan_of
from agreement.selectors.judgment_records import (
    JudgmentRecords,
    implied_pair_records,
    judgment_records_for_project,
    turn_judged,
)
from agreement.services.gold_snapshots import gold_accuracy_rows
from agreement.services.off_scale import categories_for, off_scale_rows, on_scale
from agreement.services.span_snapshots import SpanComputation
from annotation.models import Project
from annotation.task_types import REGISTRY

from .generations import snapshot_generation_new, snapshot_rows_replace


def project_agreement_rows(
    project: Project,
    records: JudgmentRecords,
    builder: RowBuilder,
    progress: Callable[[int, int], None] | None,
    first_week: int = 0,
) -> None:
    """The engine's rows of the project's plan over ``records``, from week ``first_week`` on; in a project rating
    per turn, those over whole outputs and those over assistant turns are computed apart (a turn and a
    conversation are not units of one population), the turns' rows marked as such (RowBuilder.for_turns)."""
    if project.rating_unit == Project.RatingUnit.CONVERSATION:
        plan_rows(project, records, builder, progress, first_week)
        return
    turns = turn_judged(records)
    parts = [(records.where(keep), part) for keep, part in ((~turns, builder), (turns, builder.for_turns()))]
    parts = [(part_records, part) for part_records, part in parts if len(part_records)]
    for k, (part_records, part) in enumerate(parts):
        plan_rows(project, part_records, part, _share(progress, k, len(parts)), first_week)


def _share(progress: Callable[[int, int], None] | None, k: int, n_parts: int) -> Callable[[int, int], None] | None:
    """Progress of part ``k`` of ``n_parts`` as a share of the whole."""
    if progress is None:
        return None
    return lambda done, total: progress(k * total + done, n_parts * total)


def plan_rows(
    project: Project,
    records: JudgmentRecords,
    builder: RowBuilder,
    progress: Callable[[int, int], None] | None,
    first_week: int = 0,
) -> None:
    """The engine's rows of the project's plan over ``records``, from week ``first_week`` on."""
    agreement_rows(
        project_id=project.id,
        plan=plan_of(REGISTRY[project.task_type].agreement),
        records=records,
        categories=[categories_for(project.task_type, c.scale_min, c.scale_max) for c in records.criteria],
        modulus=project.rankme_modulus,
        builder=builder,
        progress=progress,
        first_week=first_week,
    )


def snapshot_rows_compute(
    project: Project,
    everything: JudgmentRecords,
    progress: Callable[[int, int], None] | None = None,
    first_week: int = 0,
    stop_week: int | None = None,
) -> tuple[RowBuilder, int]:
    """Every snapshot row of the project's judgments in the windows of weeks ``first_week`` to before
    ``stop_week`` (indices of ``everything.weeks``; None: to the last), and how many judgments of those weeks
    were left out as off their criterion's scale."""
    builder = RowBuilder(project.id, timezone.now())
    keep = on_scale(everything, project.task_type, project.rankme_modulus)
    records = everything if keep.all() else everything.where(keep)
    if REGISTRY[project.task_type].agreement.implied_pairs:
        records = implied_pair_records(records)  # before any cut: a screen's judgments may span weeks
    if stop_week is not None:
        keep = keep[everything.week_index < stop_week]
        everything, records = everything.before_week(stop_week), records.before_week(stop_week)
    off_scale = int(np.count_nonzero(~keep & (everything.week_index >= first_week)))
    if len(records):
        # Thousands of small matrix products: BLAS threads cost more than they save (measured 20x
        # slower on a loaded two-core machine), so the computation runs on one BLAS thread.
        with threadpool_limits(limits=1, user_api="blas"):
            spans = REGISTRY[project.task_type].agreement.spans
            if spans is None:
                project_agreement_rows(project, records, builder, progress, first_week)
            else:  # two passes over the windows: each reports half of the progress
                first_half = progress and (lambda done, total: progress(done, 2 * total))
                second_half = progress and (lambda done, total: progress(total + done, 2 * total))
                project_agreement_rows(project, records, builder, first_half, first_week)
                SpanComputation(project, records, builder, spans).run(second_half, first_week)
        gold_accuracy_rows(project, records.weeks[first_week:], builder)
    off_scale_rows(everything, ~keep, builder, first_week)
    return builder, off_scale


def snapshot_compute_for_project(*, project_id: int, progress: Callable[[int, int], None] | None = None) -> dict:
    """Recomputes every snapshot of the project under a new generation, makes it current and deletes the rows it
    replaced (agreement.services.generations); idempotent. Returns counts."""
    project = Project.objects.get(pk=project_id)
    generation = snapshot_generation_new(project_id=project_id)
    records = judgment_records_for_project(project)
    builder, off_scale = snapshot_rows_compute(project, records, progress)
    snapshot_rows_replace(project_id=project_id, generation=generation, rows=builder.rows)
    return {
        "snapshots": len(builder.rows),
        "judgments": len(records) - off_scale,
        "weeks": len(records.weeks),
        "off_scale": off_scale,
    }
