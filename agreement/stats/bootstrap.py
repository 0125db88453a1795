"""Bootstrap confidence intervals by resampling units, with a seeded numpy Generator."""

import warnings

import numpy as np
from scipy import special

from . import krippendorff as _kripp
from ._units import gather_ratings, unit_kinds
from ._validation import (
    as_generator,
    as_reliability_data,
    check_choice,
    check_confidence_level,
)
from .errors import InsufficientDataError
from .results import BootstrapResult

METHODS = ("bca", "percentile")
# alpha's interval by level, as the coverage benchmark (BENCHMARKS.md, "Interval coverage") chose:
# BCa held 95% at 20-40 units for the categorical levels where the percentile interval covered
# 92-93%, and fell behind it (by about 1%) for interval alpha; ratio follows interval
ALPHA_METHODS = {"nominal": "bca", "ordinal": "bca", "interval": "percentile", "ratio": "percentile"}


def bootstrap_ci(statistic, reliability_data, *, rng, n_resamples=1000, confidence_level=0.95, name=None, method="bca"):
    r"""Bootstrap interval (BCa or percentile) of any statistic, resampling units (columns) with replacement.

       Parameters
       ----------
       statistic : callable
           ``statistic(matrix)`` -> float or a result with ``.value``, on an (n_raters, n_units)
           matrix. For two-rater statistics stack the raters:
           ``lambda d: cohen_kappa(d[0], d[1], weights="linear")``.
       reliability_data : array_like, shape (n_raters, n_units)
           ``np.nan`` = not rated.
       rng : numpy.random.Generator or int
           Source of randomness (an int seeds a new Generator); the global state is never used.
       n_resamples : int
           Replicates, e.g. 1000.
       confidence_level : float
       method : {"bca", "percentile"}
           ``"bca"`` (default): bias-corrected and accelerated [3]_, the acceleration from the
           jackknife over units (one more call of ``statistic`` per unit); ``"percentile"``: the
           plain percentile interval.

       Returns
       -------
       BootstrapResult
           The statistic on the data, the replicates' standard deviation, the interval (its
           ``method`` named) and ``n_failed``: replicates on which the statistic was undefined
           (left out).

       Raises
       ------
       InsufficientDataError
           The statistic is undefined on the data, or on more than half of the replicates.
       ValueError
           Bad ``rng``, ``n_resamples`` or ``confidence_level``.

       Notes
       -----
       Replicate :math:`b` draws :math:`n` units :math:`J_b` with replacement [1]_:

       .. math::

           \hat\theta^*_b = \theta(X_{\cdot, J_b}), \qquad
           \mathrm{CI}_\text{percentile} = \bigl[\hat\theta^*_{(\alpha/2)},\
           \hat\theta^*_{(1-\alpha/2)}\bigr].

       Resampling units keeps each unit's ratings together, as the unit is the sampling unit of a
       reliability study [2]_. The BCa interval moves the percentiles (see :func:`bca_interval`).

       References
       ----------
       .. [1] Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman &
          Hall, ch. 13. https://doi.org/10.1201/9780429246593
       .. [2] Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard
          reliability measure for coding data. Communication Methods and Measures, 1(1), 77-89.
          https://doi.org/10.1080/19312450709336664
       .. [3] Efron, B. (1987). Better bootstrap confidence intervals. Journal of the American
          Statistical Association, 82(397), 171-185. https://doi.org/10.1080/01621459.1987.10478410

       Examples
       --------
       Shrout & Fleiss (1979) Table 2 (ICC(2,1) = .29 published), with a seeded bootstrap:

       >>> import numpy as np
       >>> from agreement.stats import icc
       >>> from agreement.stats.bootstrap import bootstrap_ci
       >>> judges = [[9, 6, 8, 7, 10, 6], [2, 1, 4, 1, 5, 2], [5, 3, 6, 2, 6, 4], [8, 2, 8, 6, 9, 7]]
       >>> res = bootstrap_ci(lambda d: icc(d, model="ICC(2,1)"), judges,
       ...                    rng=np.random.default_rng(7), n_resamples=200)
       >>> round(res.value, 2), res.n_resamples, res.method
       (0.29, 200, 'bca')
    """
    check_choice("method", method, METHODS)
    data = as_reliability_data(reliability_data)
    level = check_confidence_level(confidence_level)
    gen = as_generator(rng)
    n_resamples = _check_resamples(n_resamples)
    original = _value_of(statistic(data))
    n_units = data.shape[1]
    replicates = np.empty(n_resamples)
    failed = 0
    for b in range(n_resamples):
        idx = gen.integers(0, n_units, size=n_units)
        try:
            replicates[b] = _value_of(statistic(data[:, idx]))
        except InsufficientDataError:
            replicates[b] = np.nan
            failed += 1
    label = name or getattr(statistic, "__name__", "statistic")
    jackknife = _jackknife_by_calls(statistic, data) if method == "bca" else None
    return _summarise(label, original, replicates, failed, level, jackknife)


def bca_interval(replicates, value, jackknife, *, confidence_level=0.95):
    r"""Bias-corrected and accelerated (BCa) bootstrap limits from replicates and a jackknife.

    Parameters
    ----------
    replicates : array_like, shape (n_resamples,) or (n_resamples, m)
        Bootstrap replicates of the statistic (of ``m`` statistics at once); NaN ones are left out.
    value : float or array_like, shape (m,)
        The statistic on the data.
    jackknife : array_like, shape (n_units,) or (n_units, m)
        The statistic with each unit left out in turn; NaN ones are left out.
    confidence_level : float

    Returns
    -------
    (low, high) : tuple of float or of numpy.ndarray, shape (m,)

    Notes
    -----
    With :math:`\Phi` the normal distribution function, :math:`z_q = \Phi^{-1}(q)`, the bias
    correction from the share of replicates below the estimate (ties, equal to round-off,
    count half, as in scipy)
    and the acceleration from the jackknife values :math:`\hat\theta_{(i)}` with mean
    :math:`\hat\theta_{(\cdot)}` [1]_ (§14.3):

    .. math::

        \hat z_0 = \Phi^{-1}\Bigl(\frac{\#\{\hat\theta^*_b < \hat\theta\}
        + \#\{\hat\theta^*_b = \hat\theta\}/2}{B}\Bigr), \qquad
        \hat a = \frac{\sum_i (\hat\theta_{(\cdot)} - \hat\theta_{(i)})^3}
        {6 \{\sum_i (\hat\theta_{(\cdot)} - \hat\theta_{(i)})^2\}^{3/2}},

    .. math::

        \alpha_{1,2} = \Phi\Bigl(\hat z_0 + \frac{\hat z_0 + z_{\alpha/2,\,1-\alpha/2}}
        {1 - \hat a(\hat z_0 + z_{\alpha/2,\,1-\alpha/2})}\Bigr),

    and the limits are the :math:`\alpha_1` and :math:`\alpha_2` quantiles of the replicates.
    With :math:`\hat z_0 = \hat a = 0` this is the percentile interval. The share below is kept
    within :math:`[1/(2B), 1 - 1/(2B)]` so that replicates all on one side of the estimate give
    the outermost replicate instead of an undefined limit.

    References
    ----------
    .. [1] Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman &
       Hall, ch. 14. https://doi.org/10.1201/9780429246593
    .. [2] Efron, B. (1987). Better bootstrap confidence intervals. Journal of the American
       Statistical Association, 82(397), 171-185. https://doi.org/10.1080/01621459.1987.10478410

    Examples
    --------
    Without bias or skew the limits are the percentile ones:

    >>> import numpy as np
    >>> from agreement.stats.bootstrap import bca_interval
    >>> replicates = np.linspace(-1, 1, 2001)
    >>> [round(float(x), 3) for x in bca_interval(replicates, 0.0, [-1.0, 0.0, 1.0])]
    [-0.95, 0.95]
    """
    level = check_confidence_level(confidence_level)
    reps = np.asarray(replicates, dtype=np.float64)
    jack = np.asarray(jackknife, dtype=np.float64)
    single = reps.ndim == 1
    reps, jack = reps.reshape(reps.shape[0], -1), jack.reshape(jack.shape[0], -1)
    value = np.broadcast_to(np.asarray(value, dtype=np.float64), reps.shape[1:])
    valid = ~np.isnan(reps)
    n_valid = valid.sum(axis=0)
    # a replicate within round-off of the estimate is a tie: on few units many replicates repeat the
    # data's value, and which side of it they fall must not hang on the last bit of a sum
    tie = np.abs(reps - value) <= 1e-12 * np.maximum(1.0, np.abs(value))
    below = ((reps < value) & ~tie & valid).sum(axis=0) + (tie & valid).sum(axis=0) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # every jackknife value undefined: no acceleration
        share = np.clip(below / n_valid, 0.5 / n_valid, 1.0 - 0.5 / n_valid)
        z0 = special.ndtri(share)
        dev = np.nanmean(jack, axis=0) - jack
        num, den = np.nansum(dev**3, axis=0), np.nansum(dev**2, axis=0)
        acceleration = np.where(den > 0, num / (6.0 * np.where(den > 0, den, 1.0) ** 1.5), 0.0)
        z = special.ndtri(np.array([(1.0 - level) / 2.0, (1.0 + level) / 2.0]))[:, None]
        q = special.ndtr(z0 + (z0 + z) / (1.0 - acceleration * (z0 + z)))  # (2, m)
    low, high = np.empty(reps.shape[1]), np.empty(reps.shape[1])
    for k in range(reps.shape[1]):
        low[k], high[k] = _percentiles(reps[valid[:, k], k], q[:, k])
    return (float(low[0]), float(high[0])) if single else (low, high)


def _jackknife_by_calls(statistic, data: np.ndarray) -> np.ndarray:
    """The statistic with each unit (column) left out, NaN where it is undefined."""
    out = np.empty(data.shape[1])
    keep = np.ones(data.shape[1], dtype=bool)
    for j in range(data.shape[1]):
        keep[j] = False
        try:
            out[j] = _value_of(statistic(data[:, keep]))
        except InsufficientDataError:
            out[j] = np.nan
        keep[j] = True
    return out


def bootstrap_alpha(
    reliability_data,
    *,
    level_of_measurement="nominal",
    rng,
    n_resamples=1000,
    confidence_level=0.95,
    max_blocks=None,
    method=None,
):
    r"""Bootstrap interval (BCa or percentile) of Krippendorff's alpha, resampling pairable units.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        ``np.nan`` = not rated.
    level_of_measurement : {"nominal", "ordinal", "interval", "ratio"}
    rng : numpy.random.Generator or int
    n_resamples : int
    confidence_level : float
    max_blocks : int, optional
        Resample at most this many blocks of units instead of single units (see Notes); for
        dashboards that need thousands of intervals. Default: resample units.
    method : {"bca", "percentile"}, optional
        As in :func:`bootstrap_ci`; the jackknife of BCa leaves out one pairable unit at a time
        (the per-unit sums below make all of it one pass, whatever ``max_blocks``). Default: the
        one that covered best in the coverage benchmark, ``ALPHA_METHODS[level_of_measurement]``
        (BCa for nominal and ordinal alpha, percentile for interval and ratio).

    Returns
    -------
    BootstrapResult

    Raises
    ------
    InsufficientDataError
        Alpha undefined on the data or on more than half of the replicates.
    ValueError
        ``max_blocks`` below 20.

    Notes
    -----
    Units rated at least twice are resampled with replacement (units rated once carry no
    pairable value). A replicate's alpha only needs the weighted sums

    .. math:: o^*_{ck} = \sum_u w_u\, \frac{n_{uc}(n_{uk} - [c=k])}{m_u - 1}

    over the per-unit value counts, with :math:`w_u` how often unit :math:`u` was drawn, or, at
    the interval level, the weighted per-unit moments; so each replicate costs one pass over the
    units instead of a new matrix [1]_. With many distinct values at the nominal, ordinal or
    ratio level the matrix is resampled as in :func:`bootstrap_ci`. The draws are the same as
    :func:`bootstrap_ci`'s on the pairable columns, so both give the same replicates.

    With ``max_blocks`` = :math:`G` and more pairable units than that, the units are dealt at
    random into :math:`G` blocks of (nearly) equal size and the blocks are resampled: the block
    sums of the per-unit terms above are i.i.d., so the resampled totals have the variance of
    the unit bootstrap's, and every replicate costs one :math:`G`-term sum, all replicates one
    matrix product. With :math:`G \ge 200` the percentile interval is close to the unit
    bootstrap's (a test compares them); with fewer units than :math:`G` it *is* the unit bootstrap,
    computed for all replicates in one product.

    References
    ----------
    .. [1] Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard
       reliability measure for coding data. Communication Methods and Measures, 1(1), 77-89.
       https://doi.org/10.1080/19312450709336664
    .. [2] Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability.
       https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    Krippendorff's example [2]_ (interval alpha 0.849), 1,000 seeded replicates:

    >>> import numpy as np
    >>> from agreement.stats.bootstrap import bootstrap_alpha
    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> res = bootstrap_alpha(data, level_of_measurement="interval", rng=np.random.default_rng(1))
    >>> round(res.value, 3), res.n_resamples, res.confidence_interval[1] <= 1.0, res.method
    (0.849, 1000, True, 'percentile')
    """
    check_choice("level_of_measurement", level_of_measurement, _kripp.LEVELS)
    method = ALPHA_METHODS[level_of_measurement] if method is None else method
    check_choice("method", method, METHODS)
    data = as_reliability_data(reliability_data)
    level = check_confidence_level(confidence_level)
    gen = as_generator(rng)
    n_resamples = _check_resamples(n_resamples)
    original = _kripp.krippendorff_alpha(data, level_of_measurement=level_of_measurement).value
    unit, values, m, _ = gather_ratings(data)
    pairable = np.flatnonzero(m)
    n_units = pairable.size
    # renumber pairable units 0..n_units-1 (gather_ratings keeps only their ratings)
    local = np.searchsorted(pairable, unit)
    m = m[pairable].astype(np.float64)
    distinct, codes = np.unique(values, return_inverse=True)
    interval = level_of_measurement == "interval"
    if interval:
        per_unit = _interval_per_unit(local, values, m)
        jackknife = _interval_alpha(per_unit.sum(axis=0) - per_unit) if method == "bca" else None
    elif distinct.size <= _kripp._DENSE_MAX_VALUES:
        jackknife = terms_by_kind = None
        if method == "bca" or max_blocks is not None:
            counts = np.bincount(local * distinct.size + codes, minlength=m.size * distinct.size)
            terms_by_kind = _coincidence_terms(counts.reshape(m.size, distinct.size).astype(np.float64))
        if method == "bca":
            jackknife = _dense_jackknife(terms_by_kind, distinct, level_of_measurement)
    if max_blocks is not None:
        if isinstance(max_blocks, bool) or not isinstance(max_blocks, (int, np.integer)) or max_blocks < 20:
            raise ValueError(f"max_blocks must be an integer of at least 20, e.g. 200; got {max_blocks!r}")
        if interval or distinct.size <= _kripp._DENSE_MAX_VALUES:
            block, drawn = _block_draws(gen, n_units, int(max_blocks), n_resamples)
            if interval:
                replicates = _interval_block_replicates(per_unit, block, drawn)
            else:
                replicates = _dense_block_replicates(terms_by_kind, distinct, level_of_measurement, block, drawn)
            failed = int(np.isnan(replicates).sum())
            return _summarise("krippendorff_alpha", original, replicates, failed, level, jackknife)
    if interval:
        replicate = _interval_replicator(per_unit)
    elif distinct.size <= _kripp._DENSE_MAX_VALUES:
        replicate = _dense_replicator(local, codes, distinct, m, level_of_measurement)
    else:
        columns = data[:, pairable]
        return bootstrap_ci(
            lambda d: _kripp.krippendorff_alpha(d, level_of_measurement=level_of_measurement),
            columns,
            rng=gen,
            n_resamples=n_resamples,
            confidence_level=level,
            name="krippendorff_alpha",
            method=method,
        )
    replicates = np.empty(n_resamples)
    failed = 0
    for b in range(n_resamples):
        drawn = np.bincount(gen.integers(0, n_units, size=n_units), minlength=n_units).astype(np.float64)
        value = replicate(drawn)
        replicates[b] = np.nan if value is None else value
        failed += value is None
    return _summarise("krippendorff_alpha", original, replicates, failed, level, jackknife)


def bootstrap_alpha_from_counts(
    counts,
    values,
    *,
    value,
    level_of_measurement,
    rng,
    n_resamples=1000,
    confidence_level=0.95,
    max_blocks,
    method=None,
):
    r""":func:`bootstrap_alpha` with ``max_blocks`` from per-unit value counts instead of a matrix.

    ``counts[u, c]`` is how many ratings of unit ``u`` equal ``values[c]``, for the units rated at
    least twice, in the order of the matrix's columns; ``value`` is alpha on them (as
    :func:`alpha_from_coincidences` gives it). With the same ``rng`` the replicates, and so the
    interval, are those of :func:`bootstrap_alpha` on the matrix, since its draws depend only on the
    number of pairable units.
    """
    check_choice("level_of_measurement", level_of_measurement, ("nominal", "ordinal"))
    method = ALPHA_METHODS[level_of_measurement] if method is None else method
    check_choice("method", method, METHODS)
    level = check_confidence_level(confidence_level)
    n_resamples = _check_resamples(n_resamples)
    if isinstance(max_blocks, bool) or not isinstance(max_blocks, (int, np.integer)) or max_blocks < 20:
        raise ValueError(f"max_blocks must be an integer of at least 20, e.g. 200; got {max_blocks!r}")
    counts = np.asarray(counts, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    block, drawn = _block_draws(as_generator(rng), counts.shape[0], int(max_blocks), n_resamples)
    terms_by_kind = _coincidence_terms(counts)
    replicates = _dense_block_replicates(terms_by_kind, values, level_of_measurement, block, drawn)
    jackknife = _dense_jackknife(terms_by_kind, values, level_of_measurement) if method == "bca" else None
    return _summarise("krippendorff_alpha", value, replicates, int(np.isnan(replicates).sum()), level, jackknife)


def _block_draws(gen, n_units: int, max_blocks: int, n_resamples: int):
    """Units dealt at random into blocks (one unit per block when there are few), and how often
    each block is drawn in each replicate: ``(block of each unit, drawn (n_resamples, n_blocks))``."""
    n_blocks = min(max_blocks, n_units)
    block = np.empty(n_units, dtype=np.intp)
    block[gen.permutation(n_units)] = np.arange(n_units) * n_blocks // n_units
    # bincount of uniform draws: faster than multinomial
    picks = gen.integers(0, n_blocks, size=(n_resamples, n_blocks)) + n_blocks * np.arange(n_resamples)[:, None]
    drawn = np.bincount(picks.ravel(), minlength=n_resamples * n_blocks).reshape(n_resamples, n_blocks)
    return block, drawn


def _dense_replicator(unit, codes, values, m, level):
    """Alpha of a replicate from per-unit value counts weighted by how often each unit was drawn."""
    n_codes = values.size
    counts = np.bincount(unit * n_codes + codes, minlength=m.size * n_codes).reshape(m.size, n_codes)
    counts = counts.astype(np.float64)
    inv = 1.0 / (m - 1.0)
    fixed_delta = None if level == "ordinal" else _kripp.difference_matrix(level, values, None)

    def replicate(drawn):
        weights = drawn * inv
        o = counts.T @ (counts * weights[:, None])
        o[np.diag_indices(n_codes)] -= weights @ counts
        marginals = o.sum(axis=1)
        delta = fixed_delta if fixed_delta is not None else _kripp.difference_matrix(level, values, marginals)
        de = float(marginals @ delta @ marginals)
        if de <= 0:
            return None
        n = float(marginals.sum())
        return 1.0 - (n - 1.0) * float((o * delta).sum()) / de

    return replicate


def _interval_per_unit(unit, values, m) -> np.ndarray:
    """Per-unit sums interval alpha needs (see krippendorff_alpha Notes), shape (n_units, 5):
    n, sum x, within SS, m mean^2, D_o."""
    centred = values - values[0]
    s1 = np.bincount(unit, weights=centred, minlength=m.size)
    mean = s1 / m
    dev = centred - mean[unit]
    ss = np.bincount(unit, weights=dev * dev, minlength=m.size)
    return np.column_stack([m, s1, ss, m * mean * mean, m * ss / (m - 1.0)])


def _interval_alpha(sums: np.ndarray) -> np.ndarray:
    """Interval alpha from (weighted) totals of the per-unit sums, shape (..., 5); NaN where the
    values do not vary."""
    n, total, within, m_mean2, observed = np.moveaxis(sums, -1, 0)
    m2 = within + m_mean2 - total * total / n
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(m2 > 1e-12 * np.maximum(1.0, m_mean2), 1.0 - (n - 1.0) * observed / (n * m2), np.nan)


def _interval_replicator(per_unit: np.ndarray):
    """Interval alpha of a replicate from the per-unit sums weighted by how often each unit was drawn."""

    def replicate(drawn):
        value = float(_interval_alpha(drawn @ per_unit))
        return None if np.isnan(value) else value

    return replicate


def _block_sums(block: np.ndarray, per_unit: np.ndarray, n_blocks: int) -> np.ndarray:
    """Column sums of ``per_unit`` (n_units, k) within each block: shape (n_blocks, k)."""
    k = per_unit.shape[1]
    cells = (block[:, None] * k + np.arange(k)).ravel()
    return np.bincount(cells, weights=per_unit.ravel(), minlength=n_blocks * k).reshape(n_blocks, k)


def _coincidence_terms(counts: np.ndarray):
    """Each kind of unit's coincidence terms n_uc (n_uk - [c = k]) / (m_u - 1): units with the same
    counts have the same terms, so they are built once per kind. Returns (kind of each unit,
    number of kinds, terms (n_kinds, n_codes^2))."""
    kinds, kind = unit_kinds(counts)
    n_codes = counts.shape[1]
    inv = 1.0 / (kinds.sum(axis=1) - 1.0)
    terms = kinds[:, :, None] * kinds[:, None, :] * inv[:, None, None]
    terms[:, np.arange(n_codes), np.arange(n_codes)] -= kinds * inv[:, None]
    return kind, len(kinds), terms.reshape(len(kinds), -1)


def _alpha_of_coincidences(o: np.ndarray, values: np.ndarray, level: str) -> np.ndarray:
    """Alpha of a batch of coincidence matrices (B, n_codes, n_codes); NaN where D_e is 0."""
    marginals = o.sum(axis=2)
    if level == "ordinal":
        mid_ranks = np.cumsum(marginals, axis=1) - marginals / 2.0
        delta = (mid_ranks[:, :, None] - mid_ranks[:, None, :]) ** 2
    else:
        delta = np.broadcast_to(_kripp.difference_matrix(level, values, None), o.shape)
    de = ((marginals[:, :, None] * delta) * marginals[:, None, :]).sum(axis=(1, 2))
    observed = (o * delta).sum(axis=(1, 2))
    n = marginals.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(de > 0, 1.0 - (n - 1.0) * observed / np.where(de > 0, de, 1.0), np.nan)


def _dense_block_replicates(terms_by_kind, values, level, block, drawn) -> np.ndarray:
    """Alpha of every replicate at once from block sums of the per-unit coincidence terms
    (``terms_by_kind`` as :func:`_coincidence_terms` gives them)."""
    n_codes, n_blocks = values.size, drawn.shape[1]
    kind, n_kinds, terms = terms_by_kind
    per_block = np.bincount(block * n_kinds + kind, minlength=n_blocks * n_kinds).reshape(n_blocks, -1)
    o = (drawn.astype(np.float64) @ (per_block @ terms)).reshape(-1, n_codes, n_codes)
    return _alpha_of_coincidences(o, values, level)


def _dense_jackknife(terms_by_kind, values, level) -> np.ndarray:
    """Alpha with each pairable unit left out: the total coincidences minus the unit's terms,
    computed once per kind of unit (``terms_by_kind`` as :func:`_coincidence_terms` gives them)."""
    n_codes = values.size
    kind, n_kinds, terms = terms_by_kind
    total = np.bincount(kind, minlength=n_kinds).astype(np.float64) @ terms
    return _alpha_of_coincidences((total - terms).reshape(-1, n_codes, n_codes), values, level)[kind]


def _interval_block_replicates(per_unit, block, drawn) -> np.ndarray:
    """Interval alpha of every replicate at once from block sums of the per-unit moments."""
    return _interval_alpha(drawn.astype(np.float64) @ _block_sums(block, per_unit, drawn.shape[1]))


def _value_of(result) -> float:
    return float(getattr(result, "value", result))


def _check_resamples(n_resamples) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 2:
        raise ValueError(f"n_resamples must be an integer of at least 2, e.g. 1000; got {n_resamples!r}")
    return int(n_resamples)


def _summarise(name, original, replicates, failed, level, jackknife=None) -> BootstrapResult:
    """The result with the percentile interval, or the BCa one when a ``jackknife`` is given."""
    valid = replicates[~np.isnan(replicates)]
    if failed * 2 > replicates.size or valid.size < 2:
        raise InsufficientDataError(
            f"the statistic was undefined on {failed} of {replicates.size} bootstrap replicates "
            "(too few units or a single category); there are too few units for a bootstrap interval"
        )
    if jackknife is None:
        low, high = _percentiles(valid, np.array([(1.0 - level) / 2.0, (1.0 + level) / 2.0]))
    else:
        low, high = bca_interval(valid, original, jackknife, confidence_level=level)
    return BootstrapResult(
        statistic=name,
        value=float(original),
        standard_error=float(valid.std(ddof=1)),
        confidence_interval=(float(low), float(high)),
        confidence_level=level,
        n_resamples=int(replicates.size),
        n_failed=int(failed),
        method="percentile" if jackknife is None else "bca",
    )


def _percentiles(values: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``np.quantile(values, q)`` (its default "linear" method, the same floating-point steps) from
    one sort: np.quantile's own overhead was a tenth of the dashboard's bootstrap time."""
    ordered = np.sort(values)
    virtual = (ordered.size - 1) * q
    below = np.floor(virtual).astype(np.intp)
    above = np.minimum(below + 1, ordered.size - 1)
    gamma = virtual - below
    a, b = ordered[below], ordered[above]
    diff = b - a
    return np.where(gamma >= 0.5, b - diff * (1.0 - gamma), a + diff * gamma)
