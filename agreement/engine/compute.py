"""The engine's entry: every agreement row of a project's records, from the source its plan allows."""

from collections.abc import Callable

import numpy as np

from agreement.stats.counts import LEAVE_ONE_OUT_MAX_CATEGORIES

from .counts_source import CountsSource
from .matrix_source import MatrixSource
from .records import JudgmentRecords
from .rows import RowBuilder
from .statistics import Plan
from .walker import ScopeWalker


def counts_suffice(plan: Plan, categories: list[np.ndarray | None]) -> bool:
    """Whether the scopes can be computed from per-unit category counts: every statistic has a counts form,
    every criterion has categories, and few enough of them for leave-one-out from ratings."""
    return (
        plan.from_counts
        and all(c is not None for c in categories)
        and np.unique(np.concatenate(categories)).size <= LEAVE_ONE_OUT_MAX_CATEGORIES
    )


def agreement_rows(
    *,
    project_id: int,
    plan: Plan,
    records: JudgmentRecords,
    categories: list[np.ndarray | None],
    modulus: float | None,
    builder: RowBuilder,
    progress: Callable[[int, int], None] | None = None,
    from_counts: bool | None = None,
    first_week: int = 0,
) -> None:
    """Adds to ``builder`` every window's and scope's rows of ``records`` (each criterion's ``categories``,
    None for continuous values; ``modulus``: RankME scores are compared as log ratios to it), from the
    windows of week ``first_week`` on (the records hold the weeks before it for the cumulative windows).
    From counts when they suffice, unless ``from_counts`` says which source to use."""
    if from_counts is None:
        from_counts = counts_suffice(plan, categories)
    source = (
        CountsSource(records, plan, categories) if from_counts else MatrixSource(records, plan, categories, modulus)
    )
    ScopeWalker(project_id=project_id, plan=plan, source=source, builder=builder, records=records).run(
        progress, first_week
    )
