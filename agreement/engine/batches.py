"""How a project's windows split into batches of contiguous weeks that separate processes compute.

A batch computes the weekly and cumulative windows of its weeks; a cumulative window needs every
judgment up to its week, so a batch reads the judgments of its weeks and of all the weeks before them
(``CountsSource.start_at`` adds the earlier weeks up before the first window). Every scope's bootstrap
is seeded by the scope alone (``bootstrap_seed``), so the rows do not depend on the split. Later weeks
cost more (their cumulative windows are larger), so the weeks are split by estimated cost, not count.
"""

from collections.abc import Sequence

import numpy as np

# What a window costs besides its judgments (rater-pair tables and rows, bootstraps: fixed per scope, and
# writing its rows into the snapshot table, which the batches do), in judgments, and what reading and indexing
# one judgment costs once per batch against its cost in a window. Fitted to per-window times of the
# 1M-judgment bench project (BENCHMARKS.md, "Agreement recompute"); the write's share was added when the
# batches took it over from the swap (300,000 before: weeks 0-16 then took 36.8 s beside 33.3 s for weeks
# 17-25). A poor fit only unbalances batches, it never changes a row.
WINDOW_COST = 450_000
SETUP_COST = 9.0


def week_batches(week_sizes: Sequence[int], n_batches: int) -> list[range]:
    """Contiguous ranges of week indices, at most ``n_batches`` of them and none empty, covering every
    week, chosen so that the costliest batch costs least. ``week_sizes``: the judgments of each week, in
    calendar order."""
    if n_batches < 1:
        raise ValueError("n_batches must be at least 1")
    sizes = np.asarray(week_sizes, dtype=np.float64)
    n_weeks = len(sizes)
    if n_weeks == 0:
        return []
    n_batches = min(n_batches, n_weeks)
    through = np.cumsum(sizes)  # judgments up to and including each week
    # a week's windows: the week's judgments and those cumulative to it, plus the fixed part of both
    window = np.r_[0.0, np.cumsum(sizes + through + 2 * WINDOW_COST)]

    def cost(a: int, b: int) -> float:  # weeks a..b-1 in one batch
        return window[b] - window[a] + SETUP_COST * through[b - 1]

    # best[j][b]: the least largest cost of the first b weeks in j batches (linear partition)
    best = np.full((n_batches + 1, n_weeks + 1), np.inf)
    cut = np.zeros((n_batches + 1, n_weeks + 1), dtype=np.int64)
    best[0][0] = 0.0
    for j in range(1, n_batches + 1):
        for b in range(j, n_weeks + 1):
            for a in range(j - 1, b):
                largest = max(best[j - 1][a], cost(a, b))
                if largest < best[j][b]:
                    best[j][b], cut[j][b] = largest, a
    bounds = [n_weeks]
    for j in range(n_batches, 0, -1):
        bounds.append(int(cut[j][bounds[-1]]))
    bounds.reverse()
    return [range(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
