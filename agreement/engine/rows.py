"""Snapshot rows: the scope and window a figure belongs to, and the builder that turns statistic
results (or the reason there is none) into rows for one bulk insert, in the columns of
``SNAPSHOT_FIELDS``."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from agreement.stats import InsufficientDataError

from .names import MIN_RELIABLE_UNITS, RatingUnit, Scope, Status
from .names import Window as WindowName

SNAPSHOT_FIELDS = [
    "project",
    "window",
    "week_start",
    "scope",
    "scope_key",
    "criterion",
    "subgroup",
    "rater_a",
    "rater_b",
    "statistic",
    "is_main",
    "value",
    "ci_low",
    "ci_high",
    "ci_method",
    "n_units",
    "n_raters",
    "n_pairable",
    "status",
    "reason",
    "unreliable",
    "detail",
    "computed_at",
    "rating_unit",
]


@dataclass(frozen=True)
class ScopeId:
    scope: str
    key: str
    criterion_id: int | None = None
    subgroup: str = ""
    rater_a: int | None = None
    rater_b: int | None = None


@dataclass(frozen=True)
class Window:
    name: str
    week_start: object
    rows: slice


@dataclass(frozen=True)
class RaterFigures:
    """One rater's figures on a label: judgments, the leave-one-out alpha change (``with_loo``: computed,
    ``loo_change`` None with ``loo_reason`` when undefined), median time of ``n_times`` recorded times, and
    the mean agreement with the raters it shares units with (None: no pairs computed; NaN: none defined)."""

    rater_id: int
    n_rated: int
    with_loo: bool
    loo_change: float | None
    loo_reason: str
    median_ms: float | None
    n_times: int
    mean_pair: float | None


@dataclass(frozen=True)
class Sizes:
    """What a scope's figures rest on: units rated at least twice, the raters with a rating on one
    of them, and those ratings."""

    n_units: int
    n_raters: int
    n_pairable: int

    @classmethod
    def of_matrix(cls, matrix: np.ndarray) -> "Sizes":
        rated = ~np.isnan(matrix)
        pairable_units = rated.sum(axis=0) >= 2
        return cls(
            int(pairable_units.sum()),
            int(rated[:, pairable_units].any(axis=1).sum()),
            int(rated[:, pairable_units].sum()),
        )


def outcome_of(compute: Callable, *args, **kwargs):
    """``compute``'s result, or the InsufficientDataError saying why there is none (stored as such)."""
    try:
        return compute(*args, **kwargs)
    except InsufficientDataError as exc:
        return exc


def for_each_window(
    weeks: list,
    week_of_row: np.ndarray,
    compute: Callable[[int, Window], None],
    progress: Callable[[int, int], None] | None,
    first: int = 0,
) -> None:
    """``compute(k, window)`` for week ``k``'s window, then for the window cumulative to it, week by
    week in calendar order from week ``first``; ``week_of_row`` (sorted) is each row's week, so a
    window's rows are a range. A window without rows (a week whose judgments were all off the scale)
    has no figures."""
    n_steps = 2 * (len(weeks) - first)
    for k in range(first, len(weeks)):
        week = weeks[k]
        lo, hi = np.searchsorted(week_of_row, k, "left"), np.searchsorted(week_of_row, k, "right")
        if hi > lo:
            compute(k, Window(WindowName.WEEK, week, slice(lo, hi)))
        if progress:
            progress(2 * (k - first) + 1, n_steps)
        if hi:
            compute(k, Window(WindowName.CUMULATIVE, week, slice(0, hi)))
        if progress:
            progress(2 * (k - first) + 2, n_steps)


def mean_with_others(pairs, n_raters: int) -> np.ndarray:
    """Each rater's mean over the rater pairs it is in (``pairs`` from an all-pairs statistic, raters
    numbered below ``n_raters``), weighted by shared units; NaN for a rater without a defined pair."""
    defined = ~np.isnan(pairs.value)
    weight = np.where(defined, pairs.n_units, 0.0)
    value = np.where(defined, pairs.value, 0.0)
    ends = np.concatenate([pairs.rater_a, pairs.rater_b])
    total = np.bincount(ends, weights=np.tile(weight * value, 2), minlength=n_raters)
    shared = np.bincount(ends, weights=np.tile(weight, 2), minlength=n_raters)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(shared > 0, total / shared, np.nan)


class RowBuilder:
    """Turns statistic results (or the reason there is none) into snapshot rows."""

    def __init__(self, project_id: int, now: datetime):
        self.project_id = project_id
        self.now = now
        self.rows: list[tuple] = []
        self.rating_unit = RatingUnit.CONVERSATION
        self.key_prefix = ""

    def for_turns(self) -> "RowBuilder":
        """A builder adding to the same rows whose figures are over assistant turns: their rating unit says
        so and their scope keys start with ``turn|``, so a project rating both ways keeps both sets apart."""
        turns = RowBuilder(self.project_id, self.now)
        turns.rows = self.rows
        turns.rating_unit = RatingUnit.TURN
        turns.key_prefix = "turn|"
        return turns

    def add_rater(self, window: Window, scope: ScopeId, figures: RaterFigures) -> None:
        """One rater's rows of a label: the leave-one-out alpha change (when computed) and, on cumulative
        windows, judgments, median time and mean pair agreement (when computed)."""
        n_rated = figures.n_rated
        if figures.with_loo:
            outcome = (
                InsufficientDataError(figures.loo_reason or "too little data")
                if figures.loo_change is None
                else figures.loo_change
            )
            self.add(window, scope, "alpha_change_without_rater", outcome, n_units=n_rated)
        if window.name != WindowName.CUMULATIVE:
            return
        self.add(window, scope, "judgments", n_rated, n_units=n_rated)
        self.add(
            window,
            scope,
            "median_duration_ms",
            float(figures.median_ms) if figures.n_times else InsufficientDataError("no durations recorded"),
            n_units=figures.n_times,
        )
        mean_pair = figures.mean_pair
        if mean_pair is not None:
            self.add(
                window,
                scope,
                "mean_pair_agreement",
                InsufficientDataError("no defined pair statistic") if np.isnan(mean_pair) else float(mean_pair),
                n_units=n_rated,
            )

    def add_categories(
        self, window: Window, scope: ScopeId, sizes: Sizes, specific, coincidences, values: np.ndarray
    ) -> None:
        """Specific agreement per category (``specific``: category -> share, None where no rater used
        it on a unit rated twice) and the coincidence matrix over ``values`` (which categories raters
        confuse); either may be the InsufficientDataError saying why there is none."""
        if isinstance(specific, InsufficientDataError):
            specific = dict.fromkeys(values.tolist(), specific)
        for category, share in specific.items():
            outcome = (
                InsufficientDataError("no rater used this category on a unit rated twice") if share is None else share
            )
            self.add(window, scope, f"specific_agreement_{float(category):g}", outcome, sizes=sizes)
        if isinstance(coincidences, InsufficientDataError):
            self.add(window, scope, "coincidence_matrix", coincidences, sizes=sizes)
            return
        self.add(
            window,
            scope,
            "coincidence_matrix",
            float(np.trace(coincidences) / coincidences.sum()),
            sizes=sizes,
            detail={"values": [float(v) for v in values], "matrix": np.round(coincidences, 6).tolist()},
        )

    def add(
        self,
        window: Window,
        scope: ScopeId,
        statistic: str,
        outcome,
        *,
        is_main=False,
        sizes: Sizes | None = None,
        n_units=None,
        detail=None,
    ):
        """``sizes`` fill in what the outcome does not report itself."""
        value = ci = None
        n_raters = n_pairable = 0
        status, reason = Status.OK, ""
        if isinstance(outcome, InsufficientDataError):
            status, reason = Status.INSUFFICIENT_DATA, str(outcome)[:300]
        elif isinstance(outcome, float | int | np.floating):
            value = float(outcome)
        else:
            value = float(outcome.value)
            ci = getattr(outcome, "confidence_interval", None)
            n_units = getattr(outcome, "n_units", n_units)
            n_raters = getattr(outcome, "n_raters", 0) or 0
            n_pairable = getattr(outcome, "n_pairable", 0) or 0
        if sizes is not None:
            n_units = sizes.n_units if n_units is None else n_units
            n_raters = n_raters or sizes.n_raters
            n_pairable = n_pairable or sizes.n_pairable
        n_units = int(n_units or 0)
        if value is not None and not np.isfinite(value):
            status, reason = Status.INSUFFICIENT_DATA, "undefined (no variation)"
            value = ci = None
        # bootstrap results name their method; other intervals come from a standard error formula
        ci_method = "" if ci is None else getattr(outcome, "method", "analytic")
        self.rows.append(
            (
                self.project_id,
                window.name,
                window.week_start,
                scope.scope,
                self.key_prefix + scope.key,
                scope.criterion_id,
                scope.subgroup,
                scope.rater_a,
                scope.rater_b,
                statistic,
                is_main,
                value,
                None if ci is None else float(ci[0]),
                None if ci is None else float(ci[1]),
                ci_method,
                n_units,
                n_raters,
                n_pairable,
                status,
                reason,
                n_units < MIN_RELIABLE_UNITS,
                detail or {},
                self.now,
                self.rating_unit,
            )
        )

    def add_pairs(
        self, window: Window, criterion_id: int, raters: np.ndarray, pairs, statistic: str, undefined_reason: str
    ) -> None:
        """One row per rater pair, from the array result of an all-pairs statistic."""
        a_ids, b_ids = raters[pairs.rater_a].astype(int), raters[pairs.rater_b].astype(int)
        low = getattr(pairs, "ci_low", np.full(len(pairs.value), np.nan))
        high = getattr(pairs, "ci_high", np.full(len(pairs.value), np.nan))
        ok, insufficient = Status.OK, Status.INSUFFICIENT_DATA
        for a, b, value, lo, hi, n in zip(
            np.minimum(a_ids, b_ids).tolist(),
            np.maximum(a_ids, b_ids).tolist(),
            pairs.value.tolist(),
            low.tolist(),
            high.tolist(),
            pairs.n_units.tolist(),
            strict=True,
        ):
            defined = value == value  # not NaN
            has_ci = defined and lo == lo
            self.rows.append(
                (
                    self.project_id,
                    window.name,
                    window.week_start,
                    Scope.PAIR,
                    f"{self.key_prefix}criterion={criterion_id}|pair={a}-{b}",
                    criterion_id,
                    "",
                    a,
                    b,
                    statistic,
                    False,
                    value if defined else None,
                    lo if has_ci else None,
                    hi if has_ci else None,
                    "analytic" if has_ci else "",
                    n,
                    2,
                    2 * n,
                    ok if defined else insufficient,
                    "" if defined else undefined_reason,
                    n < MIN_RELIABLE_UNITS,
                    {},
                    self.now,
                    self.rating_unit,
                )
            )
