"""Bootstrap confidence intervals by resampling units, with a seeded numpy Generator."""

import numpy as np

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


def bootstrap_ci(statistic, reliability_data, *, rng, n_resamples=1000, confidence_level=0.95, name=None):
    r"""Percentile bootstrap interval of any statistic, resampling units (columns) with replacement.

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

       Returns
       -------
       BootstrapResult
           The statistic on the data, the replicates' standard deviation, the percentile interval
           and ``n_failed``: replicates on which the statistic was undefined (left out).

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
           \mathrm{CI} = \bigl[\hat\theta^*_{(\alpha/2)},\ \hat\theta^*_{(1-\alpha/2)}\bigr].
    Resampling units keeps each unit's ratings together, as
       the unit is the sampling unit of a reliability study [2]_.

       References
       ----------
       .. [1] Efron, B., & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman &
          Hall, ch. 13. https://doi.org/10.1201/9780429246593
       .. [2] Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard
          reliability measure for coding data. Communication Methods and Measures, 1(1), 77-89.
          https://doi.org/10.1080/19312450709336664

       Examples
       --------
       Shrout & Fleiss (1979) Table 2 (ICC(2,1) = .29 published), with a seeded bootstrap:

       >>> import numpy as np
       >>> from agreement.stats import bootstrap_ci, icc
       >>> judges = [[9, 6, 8, 7, 10, 6], [2, 1, 4, 1, 5, 2], [5, 3, 6, 2, 6, 4], [8, 2, 8, 6, 9, 7]]
       >>> res = bootstrap_ci(lambda d: icc(d, model="ICC(2,1)"), judges,
       ...                    rng=np.random.default_rng(7), n_resamples=200)
       >>> round(res.value, 2), res.n_resamples
       (0.29, 200)
    """
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
    return _summarise(label, original, replicates, failed, level)


def bootstrap_alpha(
    reliability_data, *, level_of_measurement="nominal", rng, n_resamples=1000, confidence_level=0.95,
    max_blocks=None,
):
    r"""Percentile bootstrap interval of Krippendorff's alpha, resampling pairable units.

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
    >>> from agreement.stats import bootstrap_alpha
    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> res = bootstrap_alpha(data, level_of_measurement="interval", rng=np.random.default_rng(1))
    >>> round(res.value, 3), res.n_resamples, res.confidence_interval[1] <= 1.0
    (0.849, 1000, True)
    """
    check_choice("level_of_measurement", level_of_measurement, _kripp.LEVELS)
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
    if max_blocks is not None:
        if isinstance(max_blocks, bool) or not isinstance(max_blocks, (int, np.integer)) or max_blocks < 20:
            raise ValueError(f"max_blocks must be an integer of at least 20, e.g. 200; got {max_blocks!r}")
        if level_of_measurement == "interval" or distinct.size <= _kripp._DENSE_MAX_VALUES:
            block, drawn = _block_draws(gen, n_units, int(max_blocks), n_resamples)
            if level_of_measurement == "interval":
                replicates = _interval_block_replicates(local, values, m, block, drawn)
            else:
                counts = np.bincount(local * distinct.size + codes, minlength=m.size * distinct.size)
                replicates = _dense_block_replicates(counts.reshape(m.size, distinct.size).astype(np.float64),
                                                     distinct, level_of_measurement, block, drawn)
            failed = int(np.isnan(replicates).sum())
            return _summarise("krippendorff_alpha", original, replicates, failed, level)
    if level_of_measurement == "interval":
        replicate = _interval_replicator(local, values, m)
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
        )
    replicates = np.empty(n_resamples)
    failed = 0
    for b in range(n_resamples):
        drawn = np.bincount(gen.integers(0, n_units, size=n_units), minlength=n_units).astype(np.float64)
        value = replicate(drawn)
        replicates[b] = np.nan if value is None else value
        failed += value is None
    return _summarise("krippendorff_alpha", original, replicates, failed, level)


def bootstrap_alpha_from_counts(counts, values, *, value, level_of_measurement, rng, n_resamples=1000,
                                confidence_level=0.95, max_blocks):
    r""":func:`bootstrap_alpha` with ``max_blocks`` from per-unit value counts instead of a matrix.

    ``counts[u, c]`` is how many ratings of unit ``u`` equal ``values[c]``, for the units rated at
    least twice, in the order of the matrix's columns; ``value`` is alpha on them (as
    :func:`alpha_from_coincidences` gives it). With the same ``rng`` the replicates, and so the
    interval, are those of :func:`bootstrap_alpha` on the matrix, since its draws depend only on the
    number of pairable units.
    """
    check_choice("level_of_measurement", level_of_measurement, ("nominal", "ordinal"))
    level = check_confidence_level(confidence_level)
    n_resamples = _check_resamples(n_resamples)
    if isinstance(max_blocks, bool) or not isinstance(max_blocks, (int, np.integer)) or max_blocks < 20:
        raise ValueError(f"max_blocks must be an integer of at least 20, e.g. 200; got {max_blocks!r}")
    counts = np.asarray(counts, dtype=np.float64)
    block, drawn = _block_draws(as_generator(rng), counts.shape[0], int(max_blocks), n_resamples)
    replicates = _dense_block_replicates(counts, np.asarray(values, dtype=np.float64), level_of_measurement,
                                         block, drawn)
    return _summarise("krippendorff_alpha", value, replicates, int(np.isnan(replicates).sum()), level)


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


def _interval_replicator(unit, values, m):
    """Interval alpha of a replicate from weighted per-unit moments (see krippendorff_alpha Notes)."""
    centred = values - values[0]
    s1 = np.bincount(unit, weights=centred, minlength=m.size)
    mean = s1 / m
    dev = centred - mean[unit]
    ss = np.bincount(unit, weights=dev * dev, minlength=m.size)
    # per-unit sums a replicate needs, weighted in one product: n, sum x, within SS, m mean^2, D_o
    per_unit = np.column_stack([m, s1, ss, m * mean * mean, m * ss / (m - 1.0)])

    def replicate(drawn):
        n, total, within, m_mean2, observed = drawn @ per_unit
        m2 = within + m_mean2 - total * total / n
        if m2 <= 1e-12 * max(1.0, m_mean2):
            return None
        return float(1.0 - (n - 1.0) * observed / (n * m2))

    return replicate


def _block_sums(block: np.ndarray, per_unit: np.ndarray, n_blocks: int) -> np.ndarray:
    """Column sums of ``per_unit`` (n_units, k) within each block: shape (n_blocks, k)."""
    k = per_unit.shape[1]
    cells = (block[:, None] * k + np.arange(k)).ravel()
    return np.bincount(cells, weights=per_unit.ravel(), minlength=n_blocks * k).reshape(n_blocks, k)


def _dense_block_replicates(counts, values, level, block, drawn) -> np.ndarray:
    """Alpha of every replicate at once from block sums of the per-unit coincidence terms
    (``counts`` (n_units, n_codes): each pairable unit's ratings per value)."""
    n_codes, n_blocks = values.size, drawn.shape[1]
    # units with the same counts have the same terms: count each kind of unit per block instead of
    # summing n_codes^2 terms per unit
    kinds, kind = unit_kinds(counts)
    per_block = np.bincount(block * len(kinds) + kind, minlength=n_blocks * len(kinds)).reshape(n_blocks, -1)
    inv = 1.0 / (kinds.sum(axis=1) - 1.0)
    terms = kinds[:, :, None] * kinds[:, None, :] * inv[:, None, None]  # n_uc (n_uk - [c = k]) / (m_u - 1)
    terms[:, np.arange(n_codes), np.arange(n_codes)] -= kinds * inv[:, None]
    o = (drawn.astype(np.float64) @ (per_block @ terms.reshape(len(kinds), -1))).reshape(-1, n_codes, n_codes)
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


def _interval_block_replicates(unit, values, m, block, drawn) -> np.ndarray:
    """Interval alpha of every replicate at once from block sums of the per-unit moments."""
    centred = values - values[0]
    s1 = np.bincount(unit, weights=centred, minlength=m.size)
    mean = s1 / m
    dev = centred - mean[unit]
    ss = np.bincount(unit, weights=dev * dev, minlength=m.size)
    per_unit = np.column_stack([m, s1, ss, m * mean * mean, m * ss / (m - 1.0)])
    n, total, within, m_mean2, observed = (drawn.astype(np.float64) @ _block_sums(block, per_unit,
                                                                                 drawn.shape[1])).T
    m2 = within + m_mean2 - total * total / n
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(m2 > 1e-12 * np.maximum(1.0, m_mean2), 1.0 - (n - 1.0) * observed / (n * m2), np.nan)


def _value_of(result) -> float:
    return float(getattr(result, "value", result))


def _check_resamples(n_resamples) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 2:
        raise ValueError(f"n_resamples must be an integer of at least 2, e.g. 1000; got {n_resamples!r}")
    return int(n_resamples)


def _summarise(name, original, replicates, failed, level) -> BootstrapResult:
    valid = replicates[~np.isnan(replicates)]
    if failed * 2 > replicates.size or valid.size < 2:
        raise InsufficientDataError(
            f"the statistic was undefined on {failed} of {replicates.size} bootstrap replicates "
            "(too few units or a single category); there are too few units for a bootstrap interval"
        )
    low, high = _percentiles(valid, np.array([(1.0 - level) / 2.0, (1.0 + level) / 2.0]))
    return BootstrapResult(
        statistic=name,
        value=float(original),
        standard_error=float(valid.std(ddof=1)),
        confidence_interval=(float(low), float(high)),
        confidence_level=level,
        n_resamples=int(replicates.size),
        n_failed=int(failed),
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
