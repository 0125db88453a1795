"""Per-system scores from ratings: means and medians with unit-bootstrap intervals, score
distributions, per-rater normalisation (z-scores, magnitude-estimation log scaling) and mean ranks
per screen."""

from dataclasses import dataclass

import numpy as np

from ._resampling import (
    as_float_array,
    bca_interval,
    bootstrap_counts,
    check_choice,
    check_confidence,
    check_resampling,
    codes,
    percentile_interval,
    plain,
)
from .errors import InsufficientDataError

NORMALISATIONS = ("none", "zscore", "log", "modulus")
# Intervals of the means; "bca" is the default, as it covered closer to the nominal level than the
# percentile interval on small studies in the coverage benchmark (BENCHMARKS.md, "Interval coverage").
INTERVAL_METHODS = ("bca", "percentile")


@dataclass(frozen=True)
class SystemScore:
    """One system's score: ``n`` ratings over ``n_units`` units; intervals are NaN without resampling."""

    system: object
    n: int
    n_units: int
    mean: float
    mean_ci: tuple[float, float]
    median: float
    median_ci: tuple[float, float]


@dataclass(frozen=True)
class SystemRank:
    """A system's mean rank over the screens it was on (1 = best on its screen)."""

    system: object
    n_screens: int
    mean_rank: float
    mean_rank_ci: tuple[float, float]


def system_scores(
    values, *, systems, units, confidence=0.95, n_resamples=1000, rng=None, method="bca"
) -> list[SystemScore]:
    r"""Mean and median rating of each system, with cluster-bootstrap confidence intervals.

    Parameters
    ----------
    values : array_like, shape (n_ratings,)
        One rating per element (NaN elements are dropped).
    systems : array_like, shape (n_ratings,)
        The system each rating is about.
    units : array_like, shape (n_ratings,)
        The unit (item, input) each rating belongs to: the bootstrap draws units, so that all
        ratings of a drawn unit come along together.
    confidence : float
        Level of the percentile intervals.
    n_resamples : int
        Bootstrap samples; 0 gives NaN intervals.
    rng : numpy.random.Generator
        Source of randomness (required when ``n_resamples > 0``).
    method : {"bca", "percentile"}
        Interval of the means: bias-corrected and accelerated (default) [3]_, the acceleration
        from the jackknife over units, or percentile. Medians always get percentile intervals
        (the jackknife, hence BCa's acceleration, is not consistent for a median, [1]_ §11.6).

    Returns
    -------
    list of SystemScore
        One per system, in sorted system order.

    Raises
    ------
    InsufficientDataError
        No rating left after dropping NaN.
    ValueError
        Arrays of different lengths or not 1-D, an infinite value, a bad ``confidence``,
        ``n_resamples`` or ``rng``.

    Notes
    -----
    With :math:`w_u` the number of times unit :math:`u` is drawn in a bootstrap sample, the
    resampled mean of system :math:`s` is

    .. math:: \bar x^*_s = \frac{\sum_u w_u \sum_{i \in u, s} x_i}{\sum_u w_u\, n_{us}},

    and the resampled median is the weighted median of the ratings with weights :math:`w_u`.
    Intervals are BCa [3]_ (or percentile, [1]_ §13.3) intervals over units, the cluster
    bootstrap of [1]_ (§8.4), since ratings of one item are not independent; BCa's jackknife
    leaves out one unit (all its ratings) at a time. Units are drawn across all systems
    at once, so the intervals of systems judged on the same items move together as in [2]_.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall, 1993.
    .. [2] P. Koehn, "Statistical Significance Tests for Machine Translation Evaluation", EMNLP
       2004, https://aclanthology.org/W04-3250/.
    .. [3] B. Efron, "Better Bootstrap Confidence Intervals", *JASA* 82(397), 1987,
       https://doi.org/10.1080/01621459.1987.10478410.

    Examples
    --------
    Student's (1908) sleep data, as in R's ``sleep``: extra hours of sleep of 10 patients under
    two drugs; the published group means are 0.75 and 2.33 hours.

    >>> import numpy as np
    >>> extra = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0,
    ...          1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
    >>> drug = ["1"] * 10 + ["2"] * 10
    >>> patient = list(range(10)) * 2
    >>> scores = system_scores(extra, systems=drug, units=patient, n_resamples=2000,
    ...                        rng=np.random.default_rng(0))
    >>> [(s.system, round(s.mean, 2), s.median) for s in scores]
    [('1', 0.75, 0.35), ('2', 2.33, 1.75)]
    >>> low, high = scores[1].mean_ci
    >>> bool(low < 2.33 < high)
    True
    """
    confidence = check_confidence(confidence)
    n_resamples = check_resampling(n_resamples, rng)
    check_choice("method", method, INTERVAL_METHODS)
    x = as_float_array(values, "values")
    system_labels, system_codes = codes(systems, "systems")
    _, unit_codes = codes(units, "units")
    if not len(x) == len(system_codes) == len(unit_codes):
        raise ValueError(
            f"values, systems and units must have one element per rating; got lengths "
            f"{len(x)}, {len(system_codes)}, {len(unit_codes)}"
        )
    keep = ~np.isnan(x)
    if not keep.any():
        raise InsufficientDataError("no rating to score: every value is missing")
    x, system_codes, unit_codes = x[keep], system_codes[keep], unit_codes[keep]
    present = np.unique(system_codes)
    _, unit_codes = np.unique(unit_codes, return_inverse=True)
    n_units, n_systems = unit_codes.max() + 1, len(system_labels)

    sums = np.zeros((n_units, n_systems))
    counts = np.zeros((n_units, n_systems))
    np.add.at(sums, (unit_codes, system_codes), x)
    np.add.at(counts, (unit_codes, system_codes), 1.0)

    mean_lo = mean_hi = med_lo = med_hi = np.full(n_systems, np.nan)
    if n_resamples:
        boot_means, boot_medians = [], []
        order = np.argsort(x, kind="stable")
        per_system = [
            (x[order][system_codes[order] == s], unit_codes[order][system_codes[order] == s]) for s in range(n_systems)
        ]
        for w in bootstrap_counts(n_units, n_resamples, rng):
            with np.errstate(invalid="ignore", divide="ignore"):
                boot_means.append((w @ sums) / (w @ counts))
            boot_medians.append(np.column_stack([_weighted_median(v, w[:, u]) for v, u in per_system]))
        if method == "bca":
            with np.errstate(invalid="ignore", divide="ignore"):
                means = sums.sum(axis=0) / counts.sum(axis=0)
                # each unit left out in turn (NaN for a system rated on that unit alone)
                jackknife = (sums.sum(axis=0) - sums) / (counts.sum(axis=0) - counts)
            mean_lo, mean_hi = bca_interval(np.vstack(boot_means), means, jackknife, confidence)
        else:
            mean_lo, mean_hi = percentile_interval(np.vstack(boot_means), confidence)
        med_lo, med_hi = percentile_interval(np.vstack(boot_medians), confidence)

    out = []
    for s in present:
        mine = system_codes == s
        out.append(
            SystemScore(
                system=plain(system_labels[s]),
                n=int(mine.sum()),
                n_units=int((counts[:, s] > 0).sum()),
                mean=float(x[mine].mean()),
                mean_ci=(float(mean_lo[s]), float(mean_hi[s])),
                median=float(np.median(x[mine])),
                median_ci=(float(med_lo[s]), float(med_hi[s])),
            )
        )
    return out


def _weighted_median(sorted_values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Median of ``sorted_values`` under each row of ``weights`` (shape (B, n)); the mean of the two
    middle values where the cumulative weight hits exactly one half, as ``np.median`` does."""
    if sorted_values.size == 0:
        return np.full(weights.shape[0], np.nan)
    cum = np.cumsum(weights, axis=1)
    total = cum[:, -1:]
    with np.errstate(invalid="ignore"):
        lower = np.argmax(cum >= total / 2.0, axis=1)
        upper = np.argmax(cum > total / 2.0, axis=1)
    result = (sorted_values[lower] + sorted_values[upper]) / 2.0
    result[total[:, 0] == 0] = np.nan
    return result


def score_distribution(values, *, systems) -> dict:
    """How many ratings each system got at each distinct value.

    Parameters
    ----------
    values : array_like, shape (n_ratings,)
        Ratings (NaN dropped).
    systems : array_like, shape (n_ratings,)
        The system each rating is about.

    Returns
    -------
    dict
        ``{system: {value: count}}`` with values in increasing order.

    Examples
    --------
    >>> score_distribution([1, 2, 2, 5], systems=["a", "a", "b", "b"])
    {'a': {1.0: 1, 2.0: 1}, 'b': {2.0: 1, 5.0: 1}}
    """
    x = as_float_array(values, "values")
    labels, system_codes = codes(systems, "systems")
    if len(x) != len(system_codes):
        raise ValueError(f"values and systems differ in length ({len(x)} vs {len(system_codes)})")
    out = {}
    for s, label in enumerate(labels):
        mine = x[(system_codes == s) & ~np.isnan(x)]
        distinct, count = np.unique(mine, return_counts=True)
        out[plain(label)] = {float(v): int(c) for v, c in zip(distinct, count, strict=True)}
    return out


def normalise_scores(values, *, raters, method="zscore", modulus=None) -> np.ndarray:
    r"""Per-rater normalisation of ratings, as used for magnitude estimation and RankME.

    Parameters
    ----------
    values : array_like, shape (n_ratings,)
        Raw ratings; NaN stays NaN.
    raters : array_like, shape (n_ratings,)
        Who gave each rating.
    method : {"none", "zscore", "log", "modulus"}
        ``"zscore"``: :math:`(x - \bar x_r) / s_r` with the rater's mean and sample standard
        deviation (a rater with one rating or a constant rater gets 0). ``"log"``:
        :math:`\log x - \overline{\log x}_r`, i.e. the log of the rating divided by the rater's
        geometric mean, which then serves as the modulus [1]_. ``"modulus"``:
        :math:`\log(x / m_r)` with the modulus :math:`m_r` each rating was made against [1]_ [2]_.
    modulus : array_like, shape (n_ratings,), optional
        The score of the standard (modulus) shown with each rating; required for ``"modulus"``.

    Returns
    -------
    numpy.ndarray, shape (n_ratings,)

    Raises
    ------
    ValueError
        An unknown method, a missing modulus, or a non-positive rating or modulus for the
        log-based methods (magnitude estimates are ratios and must be positive [1]_).

    References
    ----------
    .. [1] E. G. Bard, D. Robertson and A. Sorace, "Magnitude Estimation of Linguistic
       Acceptability", *Language* 72(1), 1996, https://doi.org/10.2307/416793.
    .. [2] J. Novikova, O. Dušek and V. Rieser, "RankME: Reliable Human Ratings for Natural
       Language Generation", NAACL 2018, https://aclanthology.org/N18-2012/.

    Examples
    --------
    Two raters using different parts of the scale get the same z-scores:

    >>> normalise_scores([1, 2, 3, 10, 20, 30], raters=list("aaabbb")).round(3).tolist()
    [-1.0, 0.0, 1.0, -1.0, 0.0, 1.0]
    >>> scores = normalise_scores([10, 20, 40], raters=list("aaa"), method="modulus", modulus=[20, 20, 20])
    >>> scores.round(4).tolist()
    [-0.6931, 0.0, 0.6931]
    """
    check_choice("method", method, NORMALISATIONS)
    x = as_float_array(values, "values")
    _, rater_codes = codes(raters, "raters")
    if len(x) != len(rater_codes):
        raise ValueError(f"values and raters differ in length ({len(x)} vs {len(rater_codes)})")
    if method == "none":
        return x.copy()
    if method in ("log", "modulus"):
        if (x[~np.isnan(x)] <= 0).any():
            raise ValueError(f"method {method!r} takes logarithms: every rating must be positive")
        if method == "modulus":
            if modulus is None:
                raise ValueError("method 'modulus' needs the modulus each rating was made against")
            m = as_float_array(modulus, "modulus")
            if len(m) != len(x) or (m <= 0).any() or np.isnan(m).any():
                raise ValueError("modulus must give one positive number per rating")
            return np.log(x / m)
        x = np.log(x)
    n_raters = rater_codes.max() + 1 if len(x) else 0
    ok = ~np.isnan(x)
    count = np.bincount(rater_codes[ok], minlength=n_raters).astype(float)
    total = np.bincount(rater_codes[ok], weights=x[ok], minlength=n_raters)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
    centred = x - mean[rater_codes]
    if method == "log":
        return centred
    squares = np.bincount(rater_codes[ok], weights=centred[ok] ** 2, minlength=n_raters)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(squares / (count - 1))
    scale = sd[rater_codes]
    return np.where(ok & ~(scale > 0), 0.0, centred / np.where(scale > 0, scale, 1.0))


def mean_ranks(
    values, *, systems, screens, higher_is_better=True, confidence=0.95, n_resamples=1000, rng=None
) -> list[SystemRank]:
    r"""Mean rank of each system over the screens (one rater, one item) it was rated on.

    Parameters
    ----------
    values : array_like, shape (n_ratings,)
        Ratings; NaN dropped.
    systems, screens : array_like, shape (n_ratings,)
        The system rated and the screen (rater × item) each rating was given on; outputs on one
        screen were seen side by side, so their ranks are comparable whatever the rater's scale.
    higher_is_better : bool
        Rank 1 goes to the highest rating when true.
    confidence, n_resamples, rng
        Percentile interval over screens, as in :func:`system_scores`.

    Returns
    -------
    list of SystemRank

    Notes
    -----
    Within a screen the ratings are ranked with ties sharing the average rank (the "fractional"
    ranking of [1]_); a system's mean rank averages its ranks over the screens it was on.

    References
    ----------
    .. [1] M. G. Kendall, *Rank Correlation Methods*, 4th ed., Griffin, 1970, §3.

    Examples
    --------
    >>> r = mean_ranks([90, 50, 50, 10, 80, 70], systems=list("abcabc"), screens=[1, 1, 1, 2, 2, 2],
    ...                n_resamples=0)
    >>> [(x.system, x.mean_rank) for x in r]
    [('a', 2.0), ('b', 1.75), ('c', 2.25)]
    """
    from scipy.stats import rankdata

    x = as_float_array(values, "values")
    _, screen_codes = codes(screens, "screens")
    if len(x) != len(screen_codes):
        raise ValueError(f"values and screens differ in length ({len(x)} vs {len(screen_codes)})")
    keep = ~np.isnan(x)
    signed = np.where(keep, -x if higher_is_better else x, np.nan)
    # rank within each screen: sort by (screen, value), then average ranks over equal values
    ranks = np.full(len(x), np.nan)
    order = np.lexsort((signed, screen_codes))
    order = order[keep[order]]
    boundaries = np.flatnonzero(np.diff(screen_codes[order])) + 1
    for block in np.split(order, boundaries):
        ranks[block] = rankdata(signed[block])
    scores = system_scores(
        ranks, systems=systems, units=screens, confidence=confidence, n_resamples=n_resamples, rng=rng
    )
    return [SystemRank(s.system, s.n_units, s.mean, s.mean_ci) for s in scores]
