"""The engine from counts (Likert, pairwise) stores exactly what it stores from reliability matrices:
same rows in the same order, values, intervals and n equal to round-off."""

from datetime import UTC, date, datetime, timedelta
from types import SimpleNamespace

import numpy as np
import pytest

from agreement.engine.compute import agreement_rows, counts_suffice
from agreement.engine.records import JudgmentRecords
from agreement.engine.rows import RowBuilder
from agreement.engine.statistics import plan_of
from agreement.services.off_scale import categories_for
from annotation.task_types import REGISTRY


def messy_records(task_type: str, seed: int) -> JudgmentRecords:
    """1–4 raters per output, a unit's ratings spread over weeks, an output category everyone agrees
    on, mixed scales, missing durations and items without a subgroup."""
    rng = np.random.default_rng(seed)
    if task_type == "pairwise":
        scales = [(None, None)]
    else:
        scales = [(1, 5), (0, 3), (1, 5)]
    columns = [[] for _ in range(7)]
    for k in range(150):
        quality = rng.integers(0, 6)
        for rater in rng.choice(8, rng.integers(1, 5), replace=False):
            week = k % 5 if rng.random() < 0.7 else rng.integers(0, 5)
            for c, (low, high) in enumerate(scales):
                low, high = (0, 2) if low is None else (low, high)
                value = low if k % 13 == 0 else int(np.clip(quality + rng.choice((-1, 0, 0, 1)), low, high))
                for column, item in zip(
                    columns,
                    (
                        c,
                        500 + k,
                        11 + 2 * int(rater),
                        float(value),
                        week,
                        k % 4 if k % 9 else 4,
                        np.nan if rng.random() < 0.2 else float(rng.integers(900, 9000)),
                    ),
                    strict=True,
                ):
                    column.append(item)
    return JudgmentRecords(
        criteria=[SimpleNamespace(id=70 + c, scale_min=low, scale_max=high) for c, (low, high) in enumerate(scales)],
        weeks=[date(2026, 1, 5) + timedelta(weeks=w) for w in range(5)],
        subgroups=["a", "b", "c", "d", ""],
        criterion_index=np.asarray(columns[0], dtype=np.int32),
        unit=np.asarray(columns[1], dtype=np.int64),
        rater=np.asarray(columns[2], dtype=np.int64),
        value=np.asarray(columns[3]),
        week_index=np.asarray(columns[4], dtype=np.int32),
        subgroup_index=np.asarray(columns[5], dtype=np.int32),
        duration_ms=np.asarray(columns[6]),
    )


@pytest.mark.parametrize(("task_type", "seed"), [("likert", 1), ("likert", 2), ("pairwise", 3)])
def test_counts_and_matrix_computations_store_the_same_rows(task_type, seed):
    records = messy_records(task_type, seed)
    plan = plan_of(REGISTRY[task_type].agreement)
    categories = [categories_for(task_type, c.scale_min, c.scale_max) for c in records.criteria]
    now = datetime(2026, 3, 1, tzinfo=UTC)
    by_counts, by_matrix = RowBuilder(9, now), RowBuilder(9, now)
    assert counts_suffice(plan, categories)
    for builder, from_counts in ((by_counts, True), (by_matrix, False)):
        agreement_rows(
            project_id=9,
            plan=plan,
            records=records,
            categories=categories,
            modulus=None,
            builder=builder,
            from_counts=from_counts,
        )

    assert len(by_counts.rows) == len(by_matrix.rows) > 500
    for mine, theirs in zip(by_counts.rows, by_matrix.rows, strict=True):
        assert mine[:11] == theirs[:11]  # window, scope, statistic, in the same order
        for a, b in zip(mine[11:14], theirs[11:14], strict=True):  # value, ci_low, ci_high
            assert (a is None and b is None) or a == pytest.approx(b, abs=1e-12), (mine, theirs)
        assert mine[14:21] == theirs[14:21], (mine, theirs)  # ci_method, n, status, reason, unreliable
        assert mine[21] == theirs[21]
    statuses = {row[18] for row in by_counts.rows}
    assert statuses == {"ok", "insufficient_data"}  # both kinds of figure were compared
