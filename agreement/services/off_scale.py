"""Judgments whose value is not on their criterion's scale (a legacy import, a repair gone wrong):
the form refuses them, but stored ones must not stop a recompute. Both computations leave them out
of every statistic alike, and each criterion gets a row saying how many were left out, per week
and cumulative to it, so the dashboard and the export show it."""

import numpy as np

from agreement.engine.names import Window as WindowName
from agreement.engine.records import JudgmentRecords
from agreement.engine.rows import RowBuilder, Scope, ScopeId, Window
from agreement.models import OFF_SCALE
from annotation.task_types import REGISTRY

# Distinct off-scale values kept in a row's detail, enough to find them.
SHOWN_VALUES = 10


def categories_for(task_type: str, scale_min: float | None, scale_max: float | None) -> np.ndarray | None:
    """The declared, ordered categories of a criterion (None for continuous values)."""
    categories = REGISTRY[task_type].values.categories(scale_min, scale_max)
    return None if categories is None else np.array(categories)


def on_scale(records: JudgmentRecords, task_type: str, modulus: float | None) -> np.ndarray:
    """Whether each record's value is one its criterion allows: one of the declared categories (Likert,
    pairwise), within the slider's range (RankME), or a positive score (RankME with a modulus, whose
    agreement is computed on the logarithm)."""
    keep = np.ones(len(records), dtype=bool)
    for c, criterion in enumerate(records.criteria):
        in_c = records.criterion_index == c
        values = records.value[in_c]
        allowed = categories_for(task_type, criterion.scale_min, criterion.scale_max)
        if allowed is not None:
            keep[in_c] = np.isin(values, allowed)
        elif modulus is not None:
            keep[in_c] = np.isfinite(values) & (values > 0)
        else:  # a slider's range; a bound left unset (a legacy row) bounds nothing
            low = -np.inf if criterion.scale_min is None else criterion.scale_min
            high = np.inf if criterion.scale_max is None else criterion.scale_max
            keep[in_c] = (values >= low) & (values <= high)
    return keep


def off_scale_rows(records: JudgmentRecords, off: np.ndarray, builder: RowBuilder, first_week: int = 0) -> None:
    """Per criterion with values off its scale (``off`` marks them in ``records``), the number left
    out in each week that has some, and cumulative to each week from the first, with the values; in the
    windows of week ``first_week`` and after."""
    for c, criterion in enumerate(records.criteria):
        mine = np.flatnonzero(off & (records.criterion_index == c))
        if not mine.size:
            continue
        scope = ScopeId(Scope.CRITERION, f"criterion={criterion.id}", criterion_id=criterion.id)
        weeks, off_values = records.week_index[mine], records.value[mine]
        for k, week in enumerate(records.weeks[first_week:], start=first_week):
            for name, in_window in (
                (WindowName.WEEK, weeks == k),
                (WindowName.CUMULATIVE, weeks <= k),
            ):
                values = off_values[in_window]
                if values.size:
                    shown = [f"{v:g}" for v in np.unique(values)[:SHOWN_VALUES]]  # as text: NaN is no JSON
                    builder.add(
                        Window(name, week, slice(0)),
                        scope,
                        OFF_SCALE,
                        values.size,
                        n_units=values.size,
                        detail={"values": shown},
                    )
