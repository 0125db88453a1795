"""How close an automatic judge (an LLM prompted as a rater, a thresholded metric) comes to a human:
its agreement with each human and with the human consensus, beside the human–human agreement that
is the ceiling it is measured against."""

import warnings
from dataclasses import dataclass

import numpy as np

from ._resampling import (
    as_float_array,
    bootstrap_counts,
    check_choice,
    check_confidence,
    check_resampling,
    percentile_interval,
)
from .correlation import _pearson_rows
from .errors import InsufficientDataError

STATISTICS = ("alpha_interval", "alpha_nominal", "pearson")


@dataclass(frozen=True)
class Estimate:
    value: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class JudgeAgreement:
    """Agreement of one judge with ``n_humans`` humans over ``n_units`` units.

    ``human_human``: mean over human pairs. ``judge_human``: mean over humans of judge vs human
    (``judge_per_human`` one by one). ``human_consensus``: mean over humans of a human vs the
    consensus of the *other* humans; ``judge_consensus``: mean over the same leave-one-out
    consensuses of the judge vs them, so both sides face a consensus of equally many raters.
    """

    statistic: str
    n_units: int
    n_humans: int
    human_human: Estimate
    judge_human: Estimate
    judge_per_human: tuple[Estimate, ...]
    human_consensus: Estimate
    judge_consensus: Estimate


def pairwise_agreement(x, y, *, statistic="alpha_interval", weights=None) -> np.ndarray:
    r"""Agreement of two raters over the units both rated, under unit weights.

    Parameters
    ----------
    x, y : array_like, shape (n_units,)
        The two raters' values; NaN = not rated.
    statistic : {"alpha_interval", "alpha_nominal", "pearson"}
        Krippendorff's alpha for two coders [1]_ at the interval or nominal level, or Pearson's r.
    weights : array_like, shape (B, n_units), optional
        Unit weights (bootstrap counts); one result per row. Default: every unit once.

    Returns
    -------
    numpy.ndarray, shape (B,)
        NaN where fewer than two units are shared or the pooled values are constant.

    Notes
    -----
    For two coders without missing values, with :math:`N` units, :math:`n = 2N` pooled values
    and :math:`S = \sum_v (v - \bar v)^2` over them, alpha at the interval level reduces to

    .. math:: \alpha = 1 - \frac{(n - 1) \sum_u (x_u - y_u)^2}{2 N S},

    and at the nominal level, with :math:`n_c` the pooled count of category :math:`c`, to
    :math:`\alpha = 1 - 2 (n-1) \#\{x_u \ne y_u\} / (n^2 - \sum_c n_c^2)` [1]_. Written this way
    they vectorise over bootstrap weights (``agreement.stats.krippendorff_alpha`` gives the same
    values for one sample; a test checks it).

    References
    ----------
    .. [1] K. Krippendorff, "Computing Krippendorff's Alpha-Reliability", 2011,
       https://repository.upenn.edu/asc_papers/43/.

    Examples
    --------
    Krippendorff's (2011) binary example for two observers and ten units: alpha = 0.095.

    >>> a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    >>> b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    >>> round(float(pairwise_agreement(a, b, statistic="alpha_nominal")[0]), 3)
    0.095
    """
    check_choice("statistic", statistic, STATISTICS)
    x, y = as_float_array(x, "x"), as_float_array(y, "y")
    if len(x) != len(y):
        raise ValueError(f"x and y must hold one value per unit; got lengths {len(x)} and {len(y)}")
    w = np.ones((1, len(x))) if weights is None else np.asarray(weights, dtype=float)
    both = ~np.isnan(x) & ~np.isnan(y)
    w = np.where(both, w, 0.0)
    x0, y0 = np.where(both, x, 0.0), np.where(both, y, 0.0)
    n_pairs = w.sum(axis=1)
    if statistic == "pearson":
        rows = w.shape[0]
        return _pearson_rows(
            np.broadcast_to(np.where(both, x, np.nan), (rows, len(x))),
            np.broadcast_to(np.where(both, y, np.nan), (rows, len(y))),
            w,
        )
    n = 2.0 * n_pairs
    with np.errstate(invalid="ignore", divide="ignore"):
        if statistic == "alpha_interval":
            mean = (w @ x0 + w @ y0) / n
            spread = w @ x0**2 + w @ y0**2 - n * mean**2
            alpha = 1.0 - (n - 1.0) * (w @ (x0 - y0) ** 2) / (2.0 * n_pairs * spread)
            alpha[spread <= 1e-12 * np.maximum(1.0, w @ x0**2)] = np.nan
        else:
            categories = np.unique(np.concatenate([x[both], y[both]]))
            pooled = sum(((w @ (x0 == c)) + (w @ (y0 == c))) ** 2 for c in categories)
            expected = n**2 - pooled
            alpha = 1.0 - 2.0 * (n - 1.0) * (w @ (x0 != y0)) / expected
            alpha[expected <= 0] = np.nan
    alpha[n_pairs < 2] = np.nan
    return alpha


def consensus(ratings, *, statistic="alpha_interval") -> np.ndarray:
    """The humans' consensus per unit: the mean rating (interval statistics) or the single most
    frequent value (nominal; NaN when the top values tie); NaN where nobody rated.

    Parameters
    ----------
    ratings : array_like, shape (n_raters, n_units)

    Examples
    --------
    >>> consensus([[1, 2, 3], [3, 1, None], [3, None, None]], statistic="alpha_nominal").tolist()
    [3.0, nan, 3.0]
    """
    check_choice("statistic", statistic, STATISTICS)
    r = as_float_array(np.array(ratings, dtype=float), "ratings", ndim=2)
    if statistic != "alpha_nominal":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a unit nobody rated is NaN by design
            return np.nanmean(r, axis=0)
    out = np.full(r.shape[1], np.nan)
    for u in range(r.shape[1]):
        values, counts = np.unique(r[~np.isnan(r[:, u]), u], return_counts=True)
        if len(values) and (counts == counts.max()).sum() == 1:
            out[u] = values[counts.argmax()]
    return out


def judge_agreement(
    humans, judge, *, statistic="alpha_interval", confidence=0.95, n_resamples=1000, rng=None
) -> JudgeAgreement:
    r"""Agreement of an automatic judge with humans, beside human–human agreement.

    Parameters
    ----------
    humans : array_like, shape (n_humans, n_units)
        Human ratings, NaN = not rated; at least two humans.
    judge : array_like, shape (n_units,)
        The judge's rating of each unit (NaN = not rated).
    statistic : {"alpha_interval", "alpha_nominal", "pearson"}
        See :func:`pairwise_agreement`; each pair is computed over the units both rated.
    confidence, n_resamples, rng
        Percentile intervals from resampling units.

    Returns
    -------
    JudgeAgreement

    Raises
    ------
    InsufficientDataError
        Fewer than two humans, or no pair of humans sharing two units.

    Notes
    -----
    Human–human agreement is the ceiling for a judge [1]_ [2]_: a judge that agrees with humans
    as well as they agree with each other is as good as another human on this data.

    References
    ----------
    .. [1] L. Zheng et al., "Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena", NeurIPS 2023,
       https://arxiv.org/abs/2306.05685.
    .. [2] C. Chhun, F. M. Suchanek and C. Clavel, "Do Language Models Enjoy Their Own Stories?
       Prompting Large Language Models for Automatic Story Evaluation", TACL 12, 2024,
       https://doi.org/10.1162/tacl_a_00689.

    Examples
    --------
    A judge that copies the first human scores like that human:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(1, 6, 200).astype(float)
    >>> humans = np.array([np.clip(truth + rng.integers(-1, 2, 200), 1, 5) for _ in range(3)])
    >>> r = judge_agreement(humans, humans[0], n_resamples=0)
    >>> bool(r.judge_per_human[0].value == 1.0), bool(r.judge_human.value > r.human_human.value)
    (True, True)
    """
    check_choice("statistic", statistic, STATISTICS)
    confidence = check_confidence(confidence)
    n_resamples = check_resampling(n_resamples, rng)
    h = as_float_array(np.array(humans, dtype=float), "humans", ndim=2)
    j = as_float_array(judge, "judge")
    if h.shape[1] != len(j):
        raise ValueError(f"humans has {h.shape[1]} units but judge has {len(j)}")
    n_humans = h.shape[0]
    if n_humans < 2:
        raise InsufficientDataError("human–human agreement needs at least two humans")
    others = [consensus(np.delete(h, k, axis=0), statistic=statistic) for k in range(n_humans)]
    pairs = [(a, b) for a in range(n_humans) for b in range(a + 1, n_humans)]

    def block(w):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # undefined pairs are NaN and skipped
            hh = np.nanmean([pairwise_agreement(h[a], h[b], statistic=statistic, weights=w) for a, b in pairs], axis=0)
            per = np.array([pairwise_agreement(j, h[k], statistic=statistic, weights=w) for k in range(n_humans)])
            hc = np.nanmean(
                [pairwise_agreement(h[k], others[k], statistic=statistic, weights=w) for k in range(n_humans)],
                axis=0,
            )
            jc = np.nanmean(
                [pairwise_agreement(j, others[k], statistic=statistic, weights=w) for k in range(n_humans)],
                axis=0,
            )
            return np.vstack([hh, np.nanmean(per, axis=0), hc, jc, per]).T

    point = block(np.ones((1, h.shape[1])))[0]
    if np.isnan(point[0]):
        raise InsufficientDataError("no pair of humans shares two units with varying values")
    low = high = np.full(len(point), np.nan)
    if n_resamples:
        samples = np.vstack([block(w) for w in bootstrap_counts(h.shape[1], n_resamples, rng)])
        low, high = percentile_interval(samples, confidence)
    est = [Estimate(float(v), float(lo), float(hi)) for v, lo, hi in zip(point, low, high, strict=True)]
    rated = (~np.isnan(h)).any(axis=0) & ~np.isnan(j)
    return JudgeAgreement(statistic, int(rated.sum()), n_humans, est[0], est[1], tuple(est[4:]), est[2], est[3])
