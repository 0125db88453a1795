"""Post-stratified system means: ratings re-weighted so that each rater group (a value of a rater profile
field, e.g. native language) counts with a target share instead of its share of the ratings."""

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .errors import InsufficientDataError


@dataclass(frozen=True)
class PostStratifiedMean:
    """One system's post-stratified mean with its bootstrap interval, beside the raw mean and the mean of
    each stratum; ``n_resamples_used`` counts the replicates where every stratum had a rating of the system."""

    system: str
    estimate: float
    ci: tuple[float, float]
    raw_mean: float
    n: int
    stratum_means: dict[str, float]
    n_resamples_used: int


def post_stratified_means(
    values, *, systems, strata, units, weights: Mapping[str, float], confidence=0.95, n_resamples=1000, rng=None
) -> list[PostStratifiedMean]:
    r"""Post-stratified mean rating of each system, with cluster-bootstrap percentile intervals.

    Parameters
    ----------
    values : array_like, shape (n_ratings,)
        One rating per element; NaN elements are dropped.
    systems, strata, units : array_like, shape (n_ratings,)
        The system each rating is about, the stratum of its rater (a profile value) and its unit (item): the
        bootstrap draws units, so that all ratings of a drawn unit come along together.
    weights : mapping
        Target share of each stratum; non-negative, summing to 1, naming every stratum in the data.
    confidence : float
        Level of the percentile intervals.
    n_resamples : int
        Bootstrap samples; 0 gives NaN intervals.
    rng : numpy.random.Generator
        Source of randomness (required when ``n_resamples > 0``).

    Returns
    -------
    list of PostStratifiedMean, one per system in sorted order.

    Raises
    ------
    ValueError
        Mismatched lengths; weights negative, not finite, not summing to 1, or missing a stratum of the data.
    InsufficientDataError
        No ratings, or a stratum with a positive weight without a rating of some system.

    Notes
    -----
    With :math:`\bar y_{sh}` the mean rating of system :math:`s` by raters of stratum :math:`h` and
    :math:`W_h` the target shares, the post-stratified mean is [1]_

    .. math:: \hat\theta_s = \sum_h W_h \, \bar y_{sh} .

    A stratum of weight 0 does not enter. The interval is the percentile interval of
    :math:`\hat\theta_s` over resamples of the units [2]_; replicates in which a stratum of positive weight
    lost every rating of the system are left out (their number is reported).

    References
    ----------
    .. [1] Holt, D. and Smith, T. M. F. (1979). Post stratification. Journal of the Royal Statistical Society,
       Series A 142(1), 33–46. https://doi.org/10.2307/2344652
    .. [2] Davison, A. C. and Hinkley, D. V. (1997). Bootstrap Methods and their Application, §3.8 (clustered
       data). Cambridge University Press.

    Examples
    --------
    System A rated 4 and 2 by raters of stratum "en", 5 by a rater of "de"; with equal target shares the
    "de" rating counts as much as both "en" ones: (3 + 5) / 2 = 4, where the raw mean is 11 / 3.

    >>> [r.estimate for r in post_stratified_means([4, 2, 5], systems=["A"] * 3, strata=["en", "en", "de"],
    ...                                            units=[1, 2, 1], weights={"en": 0.5, "de": 0.5}, n_resamples=0)]
    [4.0]
    """
    values = np.asarray(values, dtype=float)
    systems, strata, units = (np.asarray(x, dtype=object) for x in (systems, strata, units))
    if not len(values) == len(systems) == len(strata) == len(units):
        raise ValueError("values, systems, strata and units must have the same length")
    keep = ~np.isnan(values)
    values, systems, strata, units = values[keep], systems[keep], strata[keep], units[keep]
    if not len(values):
        raise InsufficientDataError("no ratings to post-stratify")
    names = sorted(weights)
    w = np.array([weights[h] for h in names], dtype=float)
    if not np.isfinite(w).all() or (w < 0).any() or not np.isclose(w.sum(), 1.0, atol=1e-9):
        raise ValueError("weights must be non-negative shares summing to 1")
    missing = sorted(set(strata.tolist()) - set(names))
    if missing:
        raise ValueError(f"weights name no share for the stratum {', '.join(map(str, missing))}")
    if n_resamples and rng is None:
        raise ValueError("rng is required for bootstrap intervals")

    system_names = sorted(set(systems.tolist()))
    s_index = {s: k for k, s in enumerate(system_names)}
    h_index = {h: k for k, h in enumerate(names)}
    _, unit_codes = np.unique(units.astype(str), return_inverse=True)
    cell = np.array([s_index[s] for s in systems]) * len(names) + np.array([h_index[h] for h in strata])
    n_cells = len(system_names) * len(names)

    def estimates(row_weight: np.ndarray) -> np.ndarray:
        # (n_systems,) weighted stratum means; NaN where a stratum of positive weight has no rating
        sums = np.bincount(cell, weights=values * row_weight, minlength=n_cells).reshape(len(system_names), -1)
        counts = np.bincount(cell, weights=row_weight, minlength=n_cells).reshape(len(system_names), -1)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums / counts
        means = np.where(w > 0, means, 0.0)  # a stratum of weight 0 does not enter
        return means @ w

    point = estimates(np.ones(len(values)))
    empty = [s for s, x in zip(system_names, point, strict=True) if np.isnan(x)]
    if empty:
        raise InsufficientDataError(f"system {empty[0]!r} has no rating from some stratum with a positive target share")
    replicates = np.full((n_resamples, len(system_names)), np.nan)
    n_units = int(unit_codes.max()) + 1
    for b in range(n_resamples):
        drawn = np.bincount(rng.integers(0, n_units, n_units), minlength=n_units)
        replicates[b] = estimates(drawn[unit_codes].astype(float))
    alpha = (1 - confidence) / 2
    out = []
    for k, system in enumerate(system_names):
        mine = systems == system
        means = {h: float(values[mine & (strata == h)].mean()) for h in names if (mine & (strata == h)).any()}
        usable = replicates[:, k][~np.isnan(replicates[:, k])]
        ci = (
            (float(np.quantile(usable, alpha)), float(np.quantile(usable, 1 - alpha)))
            if len(usable)
            else (float("nan"), float("nan"))
        )
        out.append(
            PostStratifiedMean(
                system, float(point[k]), ci, float(values[mine].mean()), int(mine.sum()), means, len(usable)
            )
        )
    return out
