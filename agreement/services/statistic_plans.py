"""Which coefficients each task type gets, per scope, and how each is computed from a reliability
matrix (n_raters, n_units; NaN = missing) through ``agreement.stats``."""
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
    rating_slot_matrix,
    unit_category_counts,
)


@dataclass(frozen=True)
class Statistic:
    name: str
    compute: Callable[[np.ndarray, np.ndarray | None], object]


def _alpha(level: str) -> Statistic:
    return Statistic(f"krippendorff_alpha_{level}",
                     lambda m, categories: krippendorff_alpha(m, level_of_measurement=level))


def _alpha_rater_z() -> Statistic:
    """Interval alpha on scores z-normalised per rater (RankME raters use the slider differently)."""
    def compute(m, categories):
        mean = np.nanmean(m, axis=1, keepdims=True)
        sd = np.nanstd(m, axis=1, keepdims=True)
        sd[~(sd > 0)] = 1.0
        return krippendorff_alpha((m - mean) / sd, level_of_measurement="interval")
    return Statistic("krippendorff_alpha_interval_rater_z", compute)


def _icc_one_way() -> Statistic:
    """ICC(1,1) with ratings laid out by slot: crowd raters are not crossed with units."""
    def compute(m, categories):
        rated = ~np.isnan(m)
        units = np.broadcast_to(np.arange(m.shape[1]), m.shape)[rated]
        return icc(rating_slot_matrix(units, m[rated]).matrix, model="ICC(1,1)")
    return Statistic("icc_1_1", compute)


FLEISS = Statistic("fleiss_kappa", lambda m, c: fleiss_kappa(unit_category_counts(m, categories=c).counts,
                                                             categories=c))
AC1 = Statistic("gwet_ac1", lambda m, c: gwet_ac1(m, categories=c))
AC2 = Statistic("gwet_ac2_quadratic", lambda m, c: gwet_ac2(m, weights="quadratic", categories=c))
PERCENT = Statistic("percent_agreement", lambda m, c: percent_agreement(m))


@dataclass(frozen=True)
class Plan:
    """``label`` statistics run on every criterion scope (the first is the main one: alpha at
    ``level``, bootstrapped);
    ``slice`` statistics on subgroup and overall scopes; ``pair_weights`` the Cohen kappa weightings
    per rater pair (None when pairs get interval alpha instead): quadratic for Likert scales, where
    near misses are partial agreement; unweighted for the 3-way pairwise outcome, as published
    pairwise studies report it."""

    level: str
    label: tuple[Statistic, ...]
    slice: tuple[Statistic, ...]
    pair_weights: tuple[str | None, ...] | None

    @property
    def main(self) -> Statistic:
        return self.label[0]


PLANS = {
    "likert": Plan("ordinal", (_alpha("ordinal"), _alpha("nominal"), FLEISS, AC1, AC2, PERCENT),
                   (_alpha("ordinal"), PERCENT), ("quadratic",)),
    "rankme": Plan("interval", (_alpha("interval"), _alpha_rater_z(), _icc_one_way()),
                   (_alpha("interval"),), None),
    "pairwise": Plan("ordinal", (_alpha("ordinal"), _alpha("nominal"), FLEISS, PERCENT),
                     (_alpha("ordinal"), PERCENT), (None,)),
}


def categories_for(task_type: str, scale_min: float | None, scale_max: float | None) -> np.ndarray | None:
    """The declared, ordered categories of a criterion (None for continuous sliders)."""
    if task_type == "pairwise":
        return np.array([0.0, 1.0, 2.0])  # it loses < tie < it wins
    if task_type == "likert":
        return np.arange(scale_min, scale_max + 1)
    return None
