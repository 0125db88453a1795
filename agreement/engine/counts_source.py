"""Scope data as per-unit category counts, for the plans whose statistics all have a counts form
(Likert, pairwise).

Every statistic of these plans is a function of each unit's category counts (plus, for rater
pairs and leave-one-out, who gave which rating), so no (raters × units) matrix is built: a unit is
a (criterion, output) pair, its counts over the project's categories are one row of a table, and a
window's table is the week's ratings counted (weekly) or added to the previous week's table
(cumulative). A scope takes its units' rows in the order of its matrix's columns, so the
statistics, and the bootstrap draws seeded per scope, are those of the matrix source.
Rater-pair tables are counted once per pair of ratings of a unit, dated by the later rating.
"""

import numpy as np

from agreement.stats import InsufficientDataError
from agreement.stats.counts import (
    bootstrap_alpha_from_counts,
    cohen_kappa_from_pair_tables,
    coincidences_from_counts,
    leave_one_out_from_ratings,
    specific_agreement_from_counts,
)

from .bootstrap_seed import bootstrapped
from .names import Window as WindowName
from .records import JudgmentRecords
from .rows import RaterFigures, Sizes, Window, outcome_of
from .statistics import CountedScope, Plan, Statistic, alpha_of_counts
from .walker import PairResults


class CountsScope:
    def __init__(self, counted: CountedScope):
        self.counted = counted
        self.sizes = Sizes(len(counted.pairable), counted.n_raters_pairable, int(counted.pairable.sum()))

    def main(self, plan: Plan, rng: np.random.Generator):
        counted = self.counted
        try:
            alpha = alpha_of_counts(counted, plan.level)
        except InsufficientDataError as exc:
            return exc, exc
        outcome = bootstrapped(
            bootstrap_alpha_from_counts,
            counted.pairable,
            counted.values,
            value=alpha.value,
            level=plan.level,
            rng=rng,
            alone=lambda: alpha,
        )
        return outcome, alpha

    def outcome(self, statistic: Statistic):
        return outcome_of(statistic.from_counts, self.counted)

    def categories(self):
        counted = self.counted
        return (
            outcome_of(specific_agreement_from_counts, counted.table, counted.values),
            InsufficientDataError("no unit is rated by at least two raters, so nothing is paired")
            if counted.coincidences is None
            else counted.coincidences,
            counted.values,
        )


class CountsSource:
    def __init__(self, records: JudgmentRecords, plan: Plan, categories: list[np.ndarray]):
        self.plan, self.records = plan, records
        self.categories = categories
        self.values = np.unique(np.concatenate(categories))  # the columns of every table
        order = np.argsort(records.week_index, kind="stable")
        self.week = records.week_index[order]
        value = records.value[order]
        self.code = np.searchsorted(self.values, value)  # every value is on its scale (off_scale.on_scale)
        self.value = value
        criterion = records.criterion_index[order].astype(np.int64)
        unit = records.unit[order]
        span = int(unit.max()) + 1
        # units (criterion, output) numbered in (criterion, output) order: a criterion's units are a
        # range, in the column order of its matrix
        keys, self.cu = np.unique(criterion * span + unit, return_inverse=True)
        self.n_cu = keys.size
        cu_criterion, cu_output = keys // span, keys % span
        self.criterion_start = np.searchsorted(cu_criterion, np.arange(len(records.criteria) + 1))
        self.cu_subgroup = np.empty(self.n_cu, dtype=np.int64)
        self.cu_subgroup[self.cu] = records.subgroup_index[order]
        self.criterion = criterion
        self.subgroup = self.cu_subgroup[self.cu]
        self.rater_ids, self.rater = np.unique(records.rater[order], return_inverse=True)
        self.duration = records.duration_ms[order]
        self.n_raters = self.rater_ids.size
        # pooled scopes (overall, subgroup) number units output-major, as their matrices do
        pooled = np.lexsort((cu_criterion, cu_output))
        self.pooled = pooled
        self.subgroup_units = [pooled[self.cu_subgroup[pooled] == g] for g in range(len(records.subgroups))]
        self.subgroup_criterion_units = [
            [
                lo + np.flatnonzero(self.cu_subgroup[lo:hi] == g)
                for lo, hi in zip(self.criterion_start[:-1], self.criterion_start[1:], strict=True)
            ]
            for g in range(len(records.subgroups))
        ]
        self.column_numbers = [np.searchsorted(self.values, c) for c in categories]
        self.columns = [_as_slice(numbers) for numbers in self.column_numbers]
        self.pairs = _RatingPairs(self)
        self.durations = _CumulativeDurations(self)
        self.cumulative = np.zeros((self.n_cu, self.values.size))

    def start_at(self, week: int) -> None:
        """The cumulative tables of the week before ``week``, to walk on from ``week``."""
        before = slice(0, int(np.searchsorted(self.week, week, "left")))
        k = self.values.size
        counts = np.bincount(self.cu[before] * k + self.code[before], minlength=self.n_cu * k)
        self.cumulative += counts.reshape(self.n_cu, k)
        self.pairs.start_at(week)

    def window(self, week: int, window: Window) -> "_CountsWindow":
        """A week's window from its ratings counted, then the cumulative one from those added to the
        previous week's table."""
        if window.name == WindowName.CUMULATIVE:
            return _CountsWindow(self, window, self.cumulative, week, True)
        k, rows = self.values.size, window.rows
        weekly = np.bincount(self.cu[rows] * k + self.code[rows], minlength=self.n_cu * k)
        weekly = weekly.reshape(self.n_cu, k).astype(np.float64)
        self.cumulative += weekly
        return _CountsWindow(self, window, weekly, week, False)


class _CountsWindow:
    def __init__(self, source: CountsSource, window: Window, counts: np.ndarray, week: int, cumulative: bool):
        self.source, self.week, self.cumulative = source, week, cumulative
        rows = self.rows = window.rows
        ratings = counts.sum(axis=1)
        self.counts, self.rated, self.pairable = counts, ratings >= 1, ratings >= 2
        self.ratings_of_unit = ratings
        cu, rater = source.cu[rows], source.rater[rows]
        criterion, subgroup = source.criterion[rows], source.subgroup[rows]
        on_pairable = self.pairable[cu]
        r = source.n_raters
        self.n_c, n_g = len(source.records.criteria), len(source.records.subgroups)

        def raters_per(scope_index, size):
            present = np.bincount(scope_index[on_pairable] * r + rater[on_pairable], minlength=size * r)
            return (present.reshape(size, r) > 0).sum(axis=1)

        self.pairable_raters = {
            "overall": int(np.count_nonzero(np.bincount(rater[on_pairable], minlength=r))),
            "criterion": raters_per(criterion, self.n_c),
            "subgroup": raters_per(subgroup, n_g),
            "subgroup_criterion": raters_per(subgroup * self.n_c + criterion, n_g * self.n_c),
        }
        self.judgments = np.bincount(criterion * r + rater, minlength=self.n_c * r).reshape(self.n_c, r)

    def overall(self) -> CountsScope:
        return self.counted(self.source.pooled, slice(None), self.source.values, self.pairable_raters["overall"], 0)

    def criterion(self, c: int) -> CountsScope | None:
        source = self.source
        units = slice(source.criterion_start[c], source.criterion_start[c + 1])
        if not self.rated[units].any():
            return None
        n_rated = int(np.count_nonzero(self.judgments[c]))
        return self.counted(
            units, source.columns[c], source.categories[c], int(self.pairable_raters["criterion"][c]), n_rated
        )

    def subgroup(self, g: int) -> CountsScope | None:
        units = self.source.subgroup_units[g]
        if not self.rated[units].any():
            return None
        return self.counted(units, slice(None), self.source.values, int(self.pairable_raters["subgroup"][g]), 0)

    def subgroup_criterion(self, g: int, c: int) -> CountsScope | None:
        units = self.source.subgroup_criterion_units[g][c]
        if not self.rated[units].any():
            return None
        n_raters = int(self.pairable_raters["subgroup_criterion"][g * self.n_c + c])
        return self.counted(units, self.source.columns[c], self.source.categories[c], n_raters, 0)

    def counted(self, units, columns, values, n_raters_pairable: int, n_raters_rated: int) -> CountsScope:
        """The scope of ``units`` (in column order; a slice for a range) over ``columns`` of the tables."""
        if isinstance(units, slice):  # a criterion's units: rows of a range, no gather
            rows = self.counts[units]
            table = rows[self.rated[units]][:, columns]
            units = np.arange(units.start, units.stop)[self.rated[units]]
        else:
            units = units[self.rated[units]]
            table = self.counts[units][:, columns]
        pairable = table[self.pairable[units]]
        return CountsScope(
            CountedScope(
                table=table,
                pairable=pairable,
                values=np.asarray(values, dtype=np.float64),
                coincidences=coincidences_from_counts(pairable) if len(pairable) else None,
                n_raters_pairable=n_raters_pairable,
                n_raters_rated=n_raters_rated,
            )
        )

    def pairs(self, c: int, data: CountsScope) -> PairResults | None:
        """Every rater pair's statistics, indexed by rater (of all the project's raters)."""
        if np.count_nonzero(self.judgments[c]) < 2:
            return None
        a, b, tables = self.source.pairs.tables(c, self.week, self.cumulative)
        results = [cohen_kappa_from_pair_tables(a, b, tables, weights=w) for w in self.source.plan.pair_weights]
        return PairResults(self.source.rater_ids, results)

    def raters(self, c: int, data: CountsScope, alpha, with_others: np.ndarray | None) -> list[RaterFigures]:
        source, rows = self.source, self.rows
        judgments = self.judgments[c]
        raters = np.flatnonzero(judgments)
        loo = None
        if raters.size >= 3 and not isinstance(alpha, InsufficientDataError):
            in_scope = (source.criterion[rows] == c) & self.pairable[source.cu[rows]]
            loo = leave_one_out_from_ratings(
                source.rater[rows][in_scope],
                source.cu[rows][in_scope],
                source.value[rows][in_scope],
                self.ratings_of_unit,
                n_raters=source.n_raters,
                value=alpha.value,
                level_of_measurement=source.plan.level,
            )
        medians = source.durations.medians(self.week, c) if self.cumulative else None
        figures = []
        for r in raters.tolist():
            median, n_times = (medians[0][r], int(medians[1][r])) if medians is not None else (None, 0)
            figures.append(
                RaterFigures(
                    rater_id=int(source.rater_ids[r]),
                    n_rated=int(judgments[r]),
                    with_loo=loo is not None,
                    loo_change=loo.change[r] if loo is not None else None,
                    loo_reason=loo.reasons[r] if loo is not None else "",
                    median_ms=median,
                    n_times=n_times,
                    mean_pair=with_others[r] if with_others is not None else None,
                )
            )
        return figures


def _as_slice(columns: np.ndarray):
    """Consecutive column numbers as a slice, so that taking them copies nothing."""
    if columns.size and np.array_equal(columns, np.arange(columns[0], columns[0] + columns.size)):
        return slice(int(columns[0]), int(columns[0]) + columns.size)
    return columns


class _RatingPairs:
    """Every pair of ratings of a unit by two raters, with its criterion, raters (a < b), their
    categories, and the week it is complete in (the later rating's), so a window's pair tables are
    counts of its pairs: a week's from the pairs rated within it, a cumulative window's from the
    pairs complete by then."""

    def __init__(self, computation: CountsSource):
        by_unit = np.argsort(computation.cu, kind="stable")
        cu = computation.cu[by_unit]
        starts = np.flatnonzero(np.r_[True, cu[1:] != cu[:-1]])
        size = np.diff(np.r_[starts, cu.size])
        position = np.arange(cu.size) - np.repeat(starts, size)
        left_in_unit = np.repeat(size, size) - position - 1
        firsts, seconds = [], []
        lag = 1
        candidates = np.flatnonzero(left_in_unit >= 1)
        while candidates.size:  # pairs (i, i + lag) inside a unit, one vectorised pass per lag
            firsts.append(candidates)
            seconds.append(candidates + lag)
            lag += 1
            candidates = candidates[left_in_unit[candidates] >= lag]
        first = by_unit[np.concatenate(firsts)] if firsts else np.empty(0, dtype=np.intp)
        second = by_unit[np.concatenate(seconds)] if seconds else np.empty(0, dtype=np.intp)
        rater_1, rater_2 = computation.rater[first], computation.rater[second]
        swap = rater_1 > rater_2
        first, second = np.where(swap, second, first), np.where(swap, first, second)
        criterion = computation.criterion[first]
        self.k = max(len(c) for c in computation.categories)
        local = np.empty(computation.code.size, dtype=np.int64)
        for c, columns in enumerate(computation.column_numbers):
            in_c = computation.criterion == c
            local[in_c] = np.searchsorted(columns, computation.code[in_c])
        self.n_raters = computation.n_raters
        self.sizes = [len(c) for c in computation.categories]
        week_1, week_2 = computation.week[first], computation.week[second]
        complete = np.maximum(week_1, week_2)
        pair = computation.rater[first] * self.n_raters + computation.rater[second]
        self.by_criterion, self.running = [], []
        for c in range(len(computation.categories)):
            k = self.sizes[c]
            in_c = criterion == c
            pair_ids, pair_index = np.unique(pair[in_c], return_inverse=True)
            cell = (pair_index * k + local[first][in_c]) * k + local[second][in_c]
            done, same = complete[in_c], (week_1 == week_2)[in_c]
            order = np.argsort(done, kind="stable")
            within = np.flatnonzero(same)
            within = within[np.argsort(done[within], kind="stable")]
            self.by_criterion.append((pair_ids, cell[order], done[order], cell[within], done[within]))
            # the cumulative tables, carried forward week by week (weeks are computed in order)
            self.running.append(np.zeros(pair_ids.size * k * k, dtype=np.int64))

    def start_at(self, week: int) -> None:
        """The running tables of the pairs complete before ``week``."""
        for (_, cells, done, _, _), running in zip(self.by_criterion, self.running, strict=True):
            running += np.bincount(cells[: np.searchsorted(done, week, "left")], minlength=running.size)

    def tables(self, c: int, week: int, cumulative: bool):
        """(rater_a, rater_b, tables) of the pairs sharing a unit in the window, in (a, b) order."""
        pair_ids, cells, done, week_cells, week_done = self.by_criterion[c]
        k = self.sizes[c]
        if cumulative:
            running = self.running[c]
            running += np.bincount(
                cells[np.searchsorted(done, week, "left") : np.searchsorted(done, week, "right")],
                minlength=running.size,
            )
            tables = running.reshape(pair_ids.size, k, k)
        else:
            chosen = week_cells[np.searchsorted(week_done, week, "left") : np.searchsorted(week_done, week, "right")]
            tables = np.bincount(chosen, minlength=pair_ids.size * k * k).reshape(pair_ids.size, k, k)
        shared = np.flatnonzero(tables.sum(axis=(1, 2)))
        return pair_ids[shared] // self.n_raters, pair_ids[shared] % self.n_raters, tables[shared]


class _CumulativeDurations:
    """Each rater's median time per judgment on a criterion, cumulative to a week: the recorded
    durations are sorted once by (criterion, rater, duration), and a window's median is the middle
    of those dated up to its week, found through a running count."""

    def __init__(self, computation: CountsSource):
        recorded = np.flatnonzero(~np.isnan(computation.duration))
        group = computation.criterion[recorded] * computation.n_raters + computation.rater[recorded]
        order = np.lexsort((computation.duration[recorded], group))
        self.duration = computation.duration[recorded][order]
        self.week = computation.week[recorded][order]
        n_groups = len(computation.categories) * computation.n_raters
        self.bounds = np.searchsorted(group[order], np.arange(n_groups + 1))
        self.n_raters = computation.n_raters
        self.cached = (None, None)

    def medians(self, week: int, c: int):
        """(median, number of durations) per rater of criterion ``c``, cumulative to ``week``."""
        if self.cached[0] != week:
            running = np.r_[0, np.cumsum(self.week <= week)]
            before = running[self.bounds[:-1]]
            n = running[self.bounds[1:]] - before
            medians = np.full(n.size, np.nan)
            has = np.flatnonzero(n)
            # the j-th (0-based) duration of a group up to the week is where the running count reaches before + j + 1
            low = np.searchsorted(running, before[has] + (n[has] - 1) // 2 + 1) - 1
            high = np.searchsorted(running, before[has] + n[has] // 2 + 1) - 1
            medians[has] = (self.duration[low] + self.duration[high]) / 2.0
            self.cached = (week, (medians.reshape(-1, self.n_raters), n.reshape(-1, self.n_raters)))
        medians, n = self.cached[1]
        return medians[c], n[c]
