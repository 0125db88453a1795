"""Resampling helpers shared by the statistics: unit-level bootstrap counts and percentile intervals.

Every bootstrap here resamples *units* (items, inputs, screens) with replacement, never single
ratings, because ratings of one unit are correlated (the cluster bootstrap of [1]_, §8.4).

References
----------
.. [1] B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall, 1993.
"""

import warnings
from collections.abc import Iterator

import numpy as np
from scipy import special

# A block of resampling counts holds at most this many cells (8 bytes each: 32 MB).
_BLOCK_CELLS = 4_000_000


def check_confidence(confidence: float) -> float:
    """The confidence level as a float in (0, 1); ValueError otherwise."""
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be a number between 0 and 1 (exclusive), got {confidence!r}")
    return float(confidence)


def check_resampling(n_resamples: int, rng) -> int:
    """``n_resamples`` as a non-negative int; a Generator is required as soon as it is positive."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int | np.integer) or n_resamples < 0:
        raise ValueError(f"n_resamples must be a non-negative whole number, got {n_resamples!r}")
    if n_resamples and not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (np.random.default_rng(seed)) when n_resamples > 0")
    return int(n_resamples)


def check_choice(name: str, value, choices) -> str:
    """``value`` if it is one of ``choices``; else ValueError listing them (as scipy does)."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def bootstrap_counts(n_units: int, n_resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Blocks of resampling counts, each of shape (block, n_units): how often each unit is drawn
    in one bootstrap sample of ``n_units`` units with replacement. The blocks add up to
    ``n_resamples`` rows; memory stays bounded whatever the number of units."""
    block = max(1, min(n_resamples, _BLOCK_CELLS // max(n_units, 1)))
    done = 0
    while done < n_resamples:
        size = min(block, n_resamples - done)
        draws = rng.integers(0, n_units, size=(size, n_units))
        offsets = (np.arange(size) * n_units)[:, None]
        yield (np.bincount((draws + offsets).ravel(), minlength=size * n_units).reshape(size, n_units).astype(float))
        done += size


def percentile_interval(samples: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval ([1]_ §13.3) along axis 0, ignoring NaN resamples; NaN where all are NaN."""
    samples = np.asarray(samples, dtype=float)
    tail = (1.0 - confidence) / 2.0
    with warnings.catch_warnings():
        # an all-NaN column is a documented NaN result, not a problem to warn about
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(samples, [tail, 1.0 - tail], axis=0)
    return low, high


def bca_interval(samples: np.ndarray, value: np.ndarray, jackknife: np.ndarray, confidence: float):
    r"""Bias-corrected and accelerated limits ([1]_ §14.3) per column of ``samples`` (B, m), from
    the estimates ``value`` (m,) and the leave-one-unit-out ``jackknife`` (n_units, m); NaN
    resamples and jackknife values are left out, NaN limits where a column has no resample.

    :math:`\hat z_0 = \Phi^{-1}(\text{share of resamples below the estimate, ties half})` (a
    tie: equal up to round-off),
    :math:`\hat a = \sum d_i^3 / (6 (\sum d_i^2)^{3/2})` with :math:`d_i` the jackknife values'
    deviations from their mean, and the limits are the quantiles
    :math:`\Phi(\hat z_0 + (\hat z_0 + z_q)/(1 - \hat a(\hat z_0 + z_q)))` for
    :math:`q = (1 \mp \text{confidence})/2`, as scipy.stats.bootstrap's "BCa" computes them (a test
    checks it). The agreement package keeps its own copy (``agreement.stats.bca_interval``): the
    statistics packages import nothing but numpy and scipy, not each other."""
    samples = np.asarray(samples, dtype=float)
    valid = ~np.isnan(samples)
    n_valid = valid.sum(axis=0)
    # within round-off of the estimate is a tie (many resamples repeat it on few units)
    tie = np.abs(samples - value) <= 1e-12 * np.maximum(1.0, np.abs(value))
    below = ((samples < value) & ~tie & valid).sum(axis=0) + (tie & valid).sum(axis=0) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN jackknife columns: no acceleration
        # replicates all on one side give the outermost one, not an undefined limit
        z0 = special.ndtri(np.clip(below / n_valid, 0.5 / n_valid, 1.0 - 0.5 / n_valid))
        dev = np.nanmean(jackknife, axis=0) - jackknife
        num, den = np.nansum(dev**3, axis=0), np.nansum(dev**2, axis=0)
        acceleration = np.where(den > 0, num / (6.0 * np.where(den > 0, den, 1.0) ** 1.5), 0.0)
        z = special.ndtri(np.array([(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0]))[:, None]
        q = special.ndtr(z0 + (z0 + z) / (1.0 - acceleration * (z0 + z)))
    low, high = np.full(samples.shape[1], np.nan), np.full(samples.shape[1], np.nan)
    for k in np.flatnonzero(n_valid):
        low[k], high[k] = np.quantile(samples[valid[:, k], k], q[:, k])
    return low, high


def as_float_array(values, name: str, ndim: int = 1) -> np.ndarray:
    """``values`` as a float array of the given number of dimensions; ValueError otherwise."""
    array = np.asarray(values, dtype=float)
    if array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {array.shape}")
    if np.isinf(array).any():
        raise ValueError(f"{name} holds an infinite value")
    return array


def codes(labels, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct labels, integer code per element) of a 1-D label array."""
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {labels.shape}")
    return np.unique(labels, return_inverse=True)


def plain(value):
    """A numpy scalar as the Python object it holds (labels in object arrays are already plain)."""
    return value.item() if isinstance(value, np.generic) else value
