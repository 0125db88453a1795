"""Best–worst scaling results beside the counting scores (the means of the coded values, computed as for any
score): MaxDiff strengths with bootstrap intervals (weighted by the screens' sampling probabilities, with sandwich
intervals, when adaptive allocation drew them: evaluation.stats.adaptive_tuples) and the split-half reliability
of the counting scores, both from the screens' best and worst picks (evaluation.stats.best_worst)."""

from dataclasses import dataclass, replace

import numpy as np
from threadpoolctl import threadpool_limits

from evaluation.selectors.ratings import RatingFrame
from evaluation.stats import InsufficientDataError, ipw_maxdiff, maxdiff, split_half_reliability

from ._common import WEIGHTING_WORDS, generator, interval, num

# Each MaxDiff resample is a Newton fit over every judgment: at most this many keep the results page usable (about
# 7 s for 100 outputs in 200 tuples judged three times, measured on a loaded two-core machine); the API's
# n_resamples below it is taken as given.
MAXDIFF_RESAMPLES = 100
# Random splits of each tuple's judgments averaged, as Kiritchenko and Mohammad (2017) report.
SPLITS = 100


@dataclass(frozen=True)
class Screens:
    """One row per whole best–worst answer (a rater's screen): the tuple's systems, the best and the worst, and the
    tuple (item) it answers, the probability its tuple was drawn with (NaN where none was recorded);
    ``n_left_out`` answers that were not whole or had another number of outputs."""

    tuples: np.ndarray
    best: np.ndarray
    worst: np.ndarray
    units: np.ndarray
    probability: np.ndarray
    n_left_out: int


def screens_of(frame: RatingFrame) -> Screens:
    """The frame's judgments (one criterion) grouped into screens: rater and item, in the most common size."""
    order = np.lexsort((frame.item.astype(str), frame.rater))
    keys = list(zip(frame.rater[order].tolist(), frame.item[order].tolist(), strict=True))
    starts = [0, *(k for k in range(1, len(keys)) if keys[k] != keys[k - 1]), len(keys)]
    groups = [order[a:b] for a, b in zip(starts, starts[1:], strict=False) if b > a]
    whole = [g for g in groups if (frame.value[g] == 1).sum() == 1 and (frame.value[g] == -1).sum() == 1]
    sizes = np.bincount([len(g) for g in whole]) if whole else np.zeros(1, dtype=int)
    kept = [g for g in whole if len(g) == sizes.argmax()]
    tuples = np.array([frame.system[g] for g in kept], dtype=object).reshape(len(kept), -1)
    best = np.array([frame.system[g][frame.value[g] == 1][0] for g in kept], dtype=object)
    worst = np.array([frame.system[g][frame.value[g] == -1][0] for g in kept], dtype=object)
    units = np.array([frame.item[g[0]] for g in kept], dtype=object)
    drawn = frame.probability if frame.probability is not None else np.full(len(frame), np.nan)
    probability = np.array([drawn[g[0]] for g in kept], dtype=float)
    return Screens(tuples, best, worst, units, probability, len(groups) - len(kept))


@dataclass(frozen=True)
class MaxDiffStrength:
    """One output's MaxDiff natural log-strength (mean zero) with its percentile bootstrap interval over tuples."""

    strength: float | None
    strength_ci: list[float | None]


@dataclass(frozen=True)
class MaxDiffFit:
    """The best–worst multinomial logit of a criterion's whole answers."""

    #: 0 for the weighted fit, whose intervals are sandwich (Wald) intervals.
    n_resamples: int
    #: Bootstrap samples without a finite maximum-likelihood estimate (left out of the intervals).
    n_resamples_without_mle: int
    #: Adaptively drawn screens only: how each was weighted (evaluation.stats.WEIGHTINGS); None otherwise (and
    #: then left out of the answer).
    weighting: str | None
    scale: str
    #: By system.
    systems: dict[str, MaxDiffStrength]


@dataclass(frozen=True)
class SplitHalf:
    """Split-half reliability of the counting scores: per random split of each tuple's judgments the correlation
    of the halves' scores, Spearman–Brown corrected, averaged over the splits."""

    #: The correlation of the halves ("spearman").
    correlation: str
    n_splits: int
    #: The mean uncorrected correlation.
    half: float | None
    #: The mean corrected correlation.
    corrected: float | None
    #: The lowest and highest corrected correlation of a split.
    corrected_range: list[float | None]


@dataclass(frozen=True)
class BestWorstResult:
    """Best–worst scaling figures of a criterion beside its counting scores; a figure the data cannot give is None
    with the reason in its ``..._error``."""

    #: Whole answers (one best and one worst, of the most common tuple size).
    n_screens: int
    n_left_out: int
    maxdiff: MaxDiffFit | None = None
    split_half: SplitHalf | None = None
    maxdiff_error: str | None = None
    split_half_error: str | None = None


def best_worst_results(
    frame: RatingFrame, *, confidence: float, n_resamples: int, seed: int, weighting: str | None = None
) -> BestWorstResult:
    """MaxDiff log-strengths (mean zero) with percentile bootstrap intervals over tuples, and split-half
    reliability over SPLITS random splits (Spearman–Brown corrected), for one criterion's judgments; a statistic
    the data cannot give says why in its ``error``. When some screen's tuple was drawn adaptively (a recorded
    probability) and ``weighting`` is given, MaxDiff is fitted with each screen weighted as it says, with
    sandwich intervals (_weighted_maxdiff)."""
    screens = screens_of(frame)
    counts = BestWorstResult(n_screens=len(screens.best), n_left_out=screens.n_left_out)
    if not len(screens.best):
        missing = "no whole best–worst answer yet"
        return replace(counts, maxdiff_error=missing, split_half_error=missing)
    if weighting is not None and not np.isnan(screens.probability).all():
        fit, maxdiff_error = _weighted_maxdiff(screens, weighting, confidence)
    else:
        fit, maxdiff_error = _maxdiff(screens, confidence, n_resamples, seed)
    split, split_half_error = _split_half(screens, seed)
    return replace(
        counts, maxdiff=fit, split_half=split, maxdiff_error=maxdiff_error, split_half_error=split_half_error
    )


def _strengths(fit) -> dict[str, MaxDiffStrength]:
    return {
        s: MaxDiffStrength(num(v), interval(lo, hi))
        for s, v, lo, hi in zip(fit.items, fit.strengths, fit.ci_low, fit.ci_high, strict=True)
    }


def _maxdiff(screens: Screens, confidence: float, n_resamples: int, seed: int) -> tuple[MaxDiffFit | None, str | None]:
    try:
        # Many small solves: BLAS threads cost far more than they save here (a fit over 100 outputs took 1.8 s with
        # them on a loaded two-core machine, 0.07 s on one thread), as in agreement's snapshots.
        with threadpool_limits(limits=1, user_api="blas"):
            fit = maxdiff(
                screens.tuples,
                screens.best,
                screens.worst,
                units=screens.units,
                confidence=confidence,
                n_resamples=min(n_resamples, MAXDIFF_RESAMPLES),
                rng=generator(seed),
            )
    except InsufficientDataError as exc:
        return None, str(exc)
    return MaxDiffFit(
        n_resamples=fit.n_resamples,
        n_resamples_without_mle=fit.n_resamples_without_mle,
        weighting=None,
        scale="natural log-strength, mean zero",
        systems=_strengths(fit),
    ), None


def _weighted_maxdiff(screens: Screens, weighting: str, confidence: float) -> tuple[MaxDiffFit | None, str | None]:
    """MaxDiff of adaptively drawn screens: each weighted by q / its tuple's sampling probability, its square root
    or 1 (``weighting``), q uniform over the distinct tuples judged (a screen without a recorded probability
    counts as drawn from q), with sandwich (Wald) intervals, as for adaptive pairs."""
    distinct = len({tuple(sorted(map(str, t))) for t in screens.tuples.tolist()})
    probability = np.where(np.isnan(screens.probability), 1 / distinct, screens.probability)
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            fit = ipw_maxdiff(
                screens.tuples, screens.best, screens.worst, probability, weighting=weighting, confidence=confidence
            )
    except InsufficientDataError as exc:
        return None, str(exc)
    return MaxDiffFit(
        n_resamples=0,
        n_resamples_without_mle=0,
        weighting=weighting,
        scale=f"natural log-strength, mean zero; {WEIGHTING_WORDS[weighting]}, sandwich (Wald) intervals",
        systems=_strengths(fit),
    ), None


def _split_half(screens: Screens, seed: int) -> tuple[SplitHalf | None, str | None]:
    try:
        reliability = split_half_reliability(
            screens.tuples, screens.best, screens.worst, units=screens.units, n_splits=SPLITS, rng=generator(seed)
        )
    except InsufficientDataError as exc:
        return None, str(exc)
    return SplitHalf(
        correlation=reliability.correlation,
        n_splits=reliability.n_splits,
        half=num(reliability.half),
        corrected=num(reliability.corrected),
        corrected_range=interval(reliability.corrected_low, reliability.corrected_high),
    ), None
