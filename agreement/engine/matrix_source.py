"""Scope data as reliability matrices (n_raters, n_units; NaN = missing), built per scope from the
window's records: the source every plan can use, and the one of continuous scores (RankME)."""

from functools import partial

import numpy as np

from agreement.stats import InsufficientDataError, reliability_matrix
from agreement.stats.bootstrap import bootstrap_alpha
from agreement.stats.coincidence import coincidence_matrix
from agreement.stats.krippendorff import krippendorff_alpha_leave_one_out
from agreement.stats.pair_tables import cohen_kappa_all_pairs, interval_alpha_all_pairs
from agreement.stats.percent import specific_agreement

from .bootstrap_seed import bootstrapped
from .names import Window as WindowName
from .records import JudgmentRecords
from .rows import RaterFigures, Sizes, Window, outcome_of
from .statistics import Plan, Statistic
from .walker import PairResults, pair_statistics


class MatrixScope:
    """A scope's matrix over its categories (None: continuous); a criterion's also names its raters and
    which of the window's records it holds."""

    def __init__(self, matrix: np.ndarray, categories: np.ndarray | None, raters=None, records=None):
        self.matrix, self.values, self.raters, self.records = matrix, categories, raters, records
        self.sizes = Sizes.of_matrix(matrix)

    def main(self, plan: Plan, rng: np.random.Generator):
        alone = partial(outcome_of, plan.main.compute, self.matrix, self.values)
        return bootstrapped(bootstrap_alpha, self.matrix, level=plan.level, rng=rng, alone=alone), None

    def outcome(self, statistic: Statistic):
        return outcome_of(statistic.compute, self.matrix, self.values)

    def categories(self):
        if self.values is None:
            return None
        coincidences = outcome_of(coincidence_matrix, self.matrix, value_domain=self.values)
        return (
            outcome_of(specific_agreement, self.matrix, categories=self.values),
            coincidences if isinstance(coincidences, InsufficientDataError) else coincidences.matrix,
            self.values,
        )


class MatrixSource:
    def __init__(
        self, records: JudgmentRecords, plan: Plan, categories: list[np.ndarray | None], modulus: float | None
    ):
        self.plan = plan
        order = np.argsort(records.week_index, kind="stable")
        self.criterion = records.criterion_index[order]
        self.unit = records.unit[order]
        self.rater = records.rater[order]
        self.value = records.value[order]
        if modulus is not None:
            # Magnitude estimates are ratios: agreement is measured on log(score / modulus), where twice and
            # half as good as the reference lie equally far from it and one huge score cannot swamp the
            # interval distances (Bard et al. 1996). Scores are positive (the task type refuses others, and
            # stored ones that are not were left out before, by off_scale).
            self.value = np.log(self.value / modulus)
        self.subgroup = records.subgroup_index[order]
        self.week = records.week_index[order]
        self.duration = records.duration_ms[order]
        self.categories = categories
        self.n_criteria = len(records.criteria)
        # the criteria's categories together (none when a criterion's values are continuous)
        self.pooled_categories = None if any(c is None for c in categories) else np.unique(np.concatenate(categories))

    def start_at(self, k: int) -> None:
        """Nothing to carry: every window's matrices are built from its own records."""

    def window(self, k: int, window: Window) -> "_MatrixWindow":
        return _MatrixWindow(self, window)


class _MatrixWindow:
    def __init__(self, source: MatrixSource, window: Window):
        rows = window.rows
        self.source, self.window = source, window
        self.criterion_of, self.unit = source.criterion[rows], source.unit[rows]
        self.rater, self.value, self.subgroup_of = source.rater[rows], source.value[rows], source.subgroup[rows]
        self.duration = source.duration[rows]

    def matrix(self, mask: np.ndarray, pooled: bool) -> np.ndarray:
        units = self.unit[mask] * self.source.n_criteria + self.criterion_of[mask] if pooled else self.unit[mask]
        return reliability_matrix(units, self.rater[mask], self.value[mask]).matrix

    def overall(self) -> MatrixScope:
        everything = np.ones(len(self.unit), dtype=bool)
        return MatrixScope(self.matrix(everything, pooled=True), self.source.pooled_categories)

    def criterion(self, c: int) -> MatrixScope | None:
        mask = self.criterion_of == c
        if not mask.any():
            return None
        data = reliability_matrix(self.unit[mask], self.rater[mask], self.value[mask])
        return MatrixScope(data.matrix, self.source.categories[c], data.raters, mask)

    def subgroup(self, g: int) -> MatrixScope | None:
        mask = self.subgroup_of == g
        if not mask.any():
            return None
        return MatrixScope(self.matrix(mask, pooled=True), self.source.pooled_categories)

    def subgroup_criterion(self, g: int, c: int) -> MatrixScope | None:
        mask = (self.subgroup_of == g) & (self.criterion_of == c)
        if not mask.any():
            return None
        return MatrixScope(self.matrix(mask, pooled=False), self.source.categories[c])

    def pairs(self, c: int, data: MatrixScope) -> PairResults | None:
        if len(data.raters) < 2:
            return None
        results = [
            interval_alpha_all_pairs(data.matrix)
            if self.source.plan.pair_weights is None
            else cohen_kappa_all_pairs(data.matrix, weights=weights, categories=data.values)
            for _, weights, _ in pair_statistics(self.source.plan)
        ]
        return PairResults(data.raters, results)

    def raters(self, c: int, data: MatrixScope, alpha, with_others: np.ndarray | None) -> list[RaterFigures]:
        """Per rater: alpha's change without them; on cumulative windows also their median time per judgment."""
        rated = ~np.isnan(data.matrix)
        loo = None
        if len(data.raters) >= 3:  # without a rater, at least two must remain to compare
            try:
                loo = krippendorff_alpha_leave_one_out(data.matrix, level_of_measurement=self.source.plan.level)
            except InsufficientDataError:
                loo = None
        cumulative = self.window.name == WindowName.CUMULATIVE
        durations, rater_of = self.duration[data.records], self.rater[data.records]
        figures = []
        for r, rater in enumerate(data.raters):
            times = durations[(rater_of == rater) & ~np.isnan(durations)] if cumulative else np.empty(0)
            figures.append(
                RaterFigures(
                    rater_id=int(rater),
                    n_rated=int(rated[r].sum()),
                    with_loo=loo is not None,
                    loo_change=loo.change[r] if loo is not None else None,
                    loo_reason=loo.reasons[r] if loo is not None else "",
                    median_ms=np.median(times) if times.size else None,
                    n_times=int(times.size),
                    mean_pair=with_others[r] if with_others is not None else None,
                )
            )
        return figures
