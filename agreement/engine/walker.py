"""The one walk over a project's scopes, window by window: overall, each criterion (with its rater
pairs and raters), each subgroup and each subgroup's criteria. What a scope's figures are computed
from (a reliability matrix or per-unit category counts) is the data source's business
(``matrix_source``, ``counts_source``); which figures a scope gets, and how they become rows, is here."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .bootstrap_seed import scope_rng
from .names import Scope
from .rows import RaterFigures, RowBuilder, ScopeId, Sizes, Window, for_each_window, mean_with_others
from .statistics import Plan, Statistic

ALPHA_UNDEFINED = "a single value in all shared ratings: alpha is undefined"
KAPPA_UNDEFINED = "both raters used a single, common category: kappa is undefined"


@dataclass(frozen=True, eq=False)
class PairResults:
    """A criterion's all-pairs results, one per pair statistic of the plan, over ``raters`` (rater ids,
    indexed by the results' rater_a / rater_b)."""

    raters: np.ndarray
    results: list


class ScopeData(Protocol):
    """One scope's data in a window, in the form its source gives."""

    sizes: Sizes

    def main(self, plan: Plan, rng: np.random.Generator) -> tuple[object, object]:
        """(the main coefficient with its bootstrap interval, or why there is none; alpha alone)."""

    def outcome(self, statistic: Statistic) -> object:
        """The statistic's result, or the InsufficientDataError saying why there is none."""

    def categories(self) -> tuple | None:
        """(specific agreement, coincidences, values) for RowBuilder.add_categories; None when continuous."""


class WindowData(Protocol):
    def overall(self) -> ScopeData: ...

    def criterion(self, c: int) -> ScopeData | None: ...

    def subgroup(self, g: int) -> ScopeData | None: ...

    def subgroup_criterion(self, g: int, c: int) -> ScopeData | None: ...

    def pairs(self, c: int, data: ScopeData) -> PairResults | None: ...

    def raters(self, c: int, data: ScopeData, alpha, with_others: np.ndarray | None) -> list[RaterFigures]: ...


class Source(Protocol):
    week: np.ndarray  # each record's week, sorted

    def start_at(self, k: int) -> None:
        """Carries what cumulative windows add up week by week over the weeks before ``k``, the first walked."""

    def window(self, k: int, window: Window) -> WindowData: ...


def pair_statistics(plan: Plan) -> list[tuple[str, str | None, str]]:
    """(name, kappa weights, why undefined) of each pair statistic: Cohen's kappa per weighting, or interval
    alpha when the plan has no weights."""
    if plan.pair_weights is None:
        return [(f"krippendorff_alpha_{plan.level}", None, ALPHA_UNDEFINED)]
    return [("cohen_kappa" if w is None else f"cohen_kappa_{w}", w, KAPPA_UNDEFINED) for w in plan.pair_weights]


class ScopeWalker:
    """Every window and scope of ``source``, into ``builder``'s rows."""

    def __init__(self, *, project_id: int, plan: Plan, source: Source, builder: RowBuilder, records):
        self.project_id, self.plan, self.source, self.builder = project_id, plan, source, builder
        self.weeks = records.weeks
        self.criterion_ids = [c.id for c in records.criteria]
        self.subgroups = records.subgroups

    def run(self, progress: Callable[[int, int], None] | None, first_week: int = 0) -> None:
        """The windows of week ``first_week`` (an index of the records' weeks) and the weeks after it."""
        self.source.start_at(first_week)
        for_each_window(self.weeks, self.source.week, self.window, progress, first_week)

    def window(self, k: int, window: Window) -> None:
        data = self.source.window(k, window)
        self.slice_scope(window, ScopeId(Scope.OVERALL, "overall"), data.overall())
        for c, criterion_id in enumerate(self.criterion_ids):
            scope_data = data.criterion(c)
            if scope_data is not None:
                self.criterion_scope(window, data, c, criterion_id, scope_data)
        for g, name in enumerate(self.subgroups):
            scope_data = data.subgroup(g) if name else None
            if scope_data is None:
                continue
            self.slice_scope(window, ScopeId(Scope.SUBGROUP, f"subgroup={name}", subgroup=name), scope_data)
            for c, criterion_id in enumerate(self.criterion_ids):
                scope_data = data.subgroup_criterion(g, c)
                if scope_data is not None:
                    scope = ScopeId(
                        Scope.SUBGROUP_CRITERION,
                        f"subgroup={name}|criterion={criterion_id}",
                        criterion_id=criterion_id,
                        subgroup=name,
                    )
                    self.main(window, scope, scope_data, c)

    def main(self, window: Window, scope: ScopeId, data: ScopeData, c: int | str):
        """The scope's main coefficient with its bootstrap interval; returns alpha alone (or why there is none)."""
        outcome, alpha = data.main(self.plan, scope_rng(self.project_id, window, scope, c))
        self.builder.add(window, scope, self.plan.main.name, outcome, is_main=True, sizes=data.sizes)
        return alpha

    def slice_scope(self, window: Window, scope: ScopeId, data: ScopeData) -> None:
        self.main(window, scope, data, "")
        for statistic in self.plan.slice[1:]:
            self.builder.add(window, scope, statistic.name, data.outcome(statistic), sizes=data.sizes)

    def criterion_scope(self, window: Window, data: WindowData, c: int, criterion_id: int, scope_data) -> None:
        scope = ScopeId(Scope.CRITERION, f"criterion={criterion_id}", criterion_id=criterion_id)
        alpha = self.main(window, scope, scope_data, c)
        for statistic in self.plan.label[1:]:
            self.builder.add(window, scope, statistic.name, scope_data.outcome(statistic), sizes=scope_data.sizes)
        categories = scope_data.categories()
        if categories is not None:
            self.builder.add_categories(window, scope, scope_data.sizes, *categories)
        pairs = data.pairs(c, scope_data)
        with_others = None
        if pairs is not None:
            for (name, _, undefined), result in zip(pair_statistics(self.plan), pairs.results, strict=True):
                self.builder.add_pairs(window, criterion_id, pairs.raters, result, name, undefined)
            with_others = mean_with_others(pairs.results[-1], len(pairs.raters))
        for figures in data.raters(c, scope_data, alpha, with_others):
            rater_scope = ScopeId(
                Scope.RATER,
                f"criterion={criterion_id}|rater={figures.rater_id}",
                criterion_id=criterion_id,
                rater_a=figures.rater_id,
            )
            self.builder.add_rater(window, rater_scope, figures)
