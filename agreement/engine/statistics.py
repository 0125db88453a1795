"""The coefficients of a task type's agreement plan, per scope, and how each is computed through
``agreement.stats``: every statistic runs on a reliability matrix (n_raters, n_units; NaN = missing),
and says whether it also runs on the scope's per-unit category counts (see ``counts_source``)."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agreement.stats import (
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    icc,
    krippendorff_alpha,
    percent_agreement,
    unit_category_counts,
)
from agreement.stats.counts import alpha_from_coincidences, gwet_from_counts, percent_agreement_from_counts
from agreement.stats.normalisation import rater_zscores
from agreement.stats.reliability_data import rating_slot_matrix


@dataclass(frozen=True)
class CountedScope:
    """A scope's data as per-unit category counts: ``table`` (units with a rating, K) and
    ``pairable`` (the units rated at least twice) over ``values``, in the columns' order of the
    scope's reliability matrix; ``coincidences`` of the pairable units (None without any);
    ``n_raters_pairable`` / ``n_raters_rated`` the raters with a rating on a pairable / any unit."""

    table: np.ndarray
    pairable: np.ndarray
    values: np.ndarray
    coincidences: np.ndarray | None
    n_raters_pairable: int
    n_raters_rated: int


@dataclass(frozen=True)
class Statistic:
    """A coefficient from a scope's reliability matrix and categories (None: continuous) and, when
    ``from_counts`` is given, the same coefficient from the scope's counts."""

    name: str
    compute: Callable[[np.ndarray, np.ndarray | None], object]
    from_counts: Callable[[CountedScope], object] | None = None

    @property
    def needs_matrix(self) -> bool:
        return self.from_counts is None


def alpha_of_counts(scope: CountedScope, level: str):
    return alpha_from_coincidences(
        scope.coincidences,
        scope.values,
        n_units=len(scope.pairable),
        n_raters=scope.n_raters_pairable,
        level_of_measurement=level,
    )


def _alpha(level: str) -> Statistic:
    return Statistic(
        f"krippendorff_alpha_{level}",
        lambda m, categories: krippendorff_alpha(m, level_of_measurement=level),
        lambda scope: alpha_of_counts(scope, level),
    )


def _alpha_rater_z() -> Statistic:
    """Interval alpha on scores z-normalised per rater (RankME raters use the slider differently)."""
    return Statistic(
        "krippendorff_alpha_interval_rater_z",
        lambda m, categories: krippendorff_alpha(rater_zscores(m), level_of_measurement="interval"),
    )


def _icc_one_way() -> Statistic:
    """ICC(1,1) with ratings laid out by slot: crowd raters are not crossed with units."""

    def compute(m, categories):
        rated = ~np.isnan(m)
        units = np.broadcast_to(np.arange(m.shape[1]), m.shape)[rated]
        return icc(rating_slot_matrix(units, m[rated]).matrix, model="ICC(1,1)")

    return Statistic("icc_1_1", compute)


FLEISS = Statistic(
    "fleiss_kappa",
    lambda m, c: fleiss_kappa(unit_category_counts(m, categories=c).counts, categories=c),
    lambda scope: fleiss_kappa(scope.table, categories=scope.values),
)
AC1 = Statistic(
    "gwet_ac1",
    lambda m, c: gwet_ac1(m, categories=c),
    lambda scope: gwet_from_counts(scope.table, n_raters=scope.n_raters_rated),
)
# weights on category positions, which for a Likert scale's integer categories are its values too
AC2 = Statistic(
    "gwet_ac2_quadratic",
    lambda m, c: gwet_ac2(m, weights="quadratic", categories=c, weight_basis="position"),
    lambda scope: gwet_from_counts(
        scope.table, n_raters=scope.n_raters_rated, weights="quadratic", weight_basis="position"
    ),
)
PERCENT = Statistic(
    "percent_agreement", lambda m, c: percent_agreement(m), lambda scope: percent_agreement_from_counts(scope.pairable)
)


@dataclass(frozen=True)
class Plan:
    """A task type's agreement plan (``annotation.task_types.facts.AgreementPlan``) with its statistics:
    ``label`` statistics run on every criterion scope (the first is the main one: alpha at ``level``,
    bootstrapped); ``slice`` statistics on subgroup and overall scopes; ``pair_weights`` the Cohen kappa
    weightings per rater pair (None when pairs get interval alpha instead)."""

    level: str
    label: tuple[Statistic, ...]
    slice: tuple[Statistic, ...]
    pair_weights: tuple[str | None, ...] | None

    @property
    def main(self) -> Statistic:
        return self.label[0]

    @property
    def from_counts(self) -> bool:
        """Every statistic has a counts form (the categorical plans)."""
        return not any(s.needs_matrix for s in self.label + self.slice)


STATISTICS = {
    s.name: s
    for s in (
        *(_alpha(level) for level in ("nominal", "ordinal", "interval")),
        _alpha_rater_z(),
        _icc_one_way(),
        FLEISS,
        AC1,
        AC2,
        PERCENT,
    )
}


def plan_of(declared) -> Plan:
    """The Plan of a task type's declared ``annotation.task_types.facts.AgreementPlan`` (its level, the
    names of its label and slice statistics, its pair weights)."""
    return Plan(
        declared.level,
        tuple(STATISTICS[n] for n in declared.label),
        tuple(STATISTICS[n] for n in declared.slice),
        declared.pair_weights,
    )
