"""Krippendorff's alpha for any number of raters, missing ratings and four levels of measurement.

The computation streams over blocks of units (see ``_units``): with few distinct values it builds
the coincidence matrix from per-unit value counts; with many distinct values (continuous sliders)
it never forms a values-by-values matrix of the data's size.
"""

from dataclasses import dataclass

import numpy as np

from . import _leave_one_out
from ._units import gather_ratings, iter_unit_blocks
from ._validation import as_reliability_data, check_choice, value_range
from .errors import InsufficientDataError
from .results import AgreementResult, LeaveOneOutResult

LEVELS = ("nominal", "ordinal", "interval", "ratio")

# Up to this many distinct values alpha goes through the coincidence matrix (values x values);
# above it, through per-unit moments (interval, ordinal), sorting (nominal) or within-unit pairs
# (ratio).
_DENSE_MAX_VALUES = 64
# Largest coincidence matrix coincidence_matrix() agrees to build.
_COINCIDENCE_MAX_VALUES = 2000


class _NotIntegral(Exception):
    """A block held a non-integer value where the integer fast path was tried."""


@dataclass(frozen=True)
class _AlphaParts:
    """Sums behind alpha: D_o = do_sum / n and D_e = de_sum / (n (n - 1)), as in [1]."""

    n: int
    n_units: int
    n_raters: int
    do_sum: float
    de_sum: float
    single_value: float | None


def krippendorff_alpha(reliability_data, *, level_of_measurement="nominal", value_domain=None):
    r"""Krippendorff's alpha reliability coefficient.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        Rating of unit ``j`` by rater ``i``; ``np.nan`` (or ``None``) = not rated. Any number of
        raters per unit; units with fewer than two ratings are not pairable and are ignored, as
        the method prescribes [1]_.
    level_of_measurement : {"nominal", "ordinal", "interval", "ratio"}
        Chooses the difference function :math:`\delta^2` below. Ordinal values are ranked by
        their numeric code.
    value_domain : sequence of float, optional
        The values raters could use (the criterion's scale). Only checked: every rating must be
        in it. It does not change alpha, because unused values carry no weight in [1]_.

    Returns
    -------
    AgreementResult
        ``value`` is alpha; ``n_units`` the pairable units, ``n_pairable`` the pairable values
        :math:`n`, ``observed_disagreement`` and ``expected_disagreement`` :math:`D_o, D_e`.
        No standard error: use :func:`bootstrap_alpha` for an interval.

    Raises
    ------
    InsufficientDataError
        Empty input, no unit rated by at least two raters, or a single value in use among the
        pairable values (then :math:`D_e = 0` and alpha is undefined).
    ValueError
        Not 2-D, an unknown level, a rating outside ``value_domain``, a negative value at the
        ratio level, or an infinite value.

    Notes
    -----
    With :math:`m_u` the ratings of unit :math:`u`, :math:`n_{uc}` how many of them equal
    :math:`c`, the coincidences and their marginals are [1]_

    .. math::

        o_{ck} = \sum_{u:\,m_u \ge 2} \frac{n_{uc}\,(n_{uk} - [c = k])}{m_u - 1}, \qquad
        n_c = \sum_k o_{ck}, \qquad n = \sum_c n_c,

    and

    .. math::

        \alpha = 1 - \frac{D_o}{D_e}, \qquad
        D_o = \frac{1}{n} \sum_{c,k} o_{ck}\,\delta^2_{ck}, \qquad
        D_e = \frac{1}{n(n-1)} \sum_{c,k} n_c\, n_k\, \delta^2_{ck},

    with :math:`\delta^2_{ck}` equal to :math:`[c \ne k]` (nominal),
    :math:`\bigl(\sum_{g=c}^{k} n_g - \tfrac{n_c + n_k}{2}\bigr)^2` (ordinal),
    :math:`(c-k)^2` (interval) and :math:`\bigl(\tfrac{c-k}{c+k}\bigr)^2` (ratio).

    "Ordinal" is Krippendorff's rank-frequency metric (0.815 on the example below), not Gwet's
    ordinal weights. Because the ordinal difference equals the squared distance between the
    mid-ranks :math:`F_c = \sum_{g<c} n_g + n_c/2`, ordinal alpha is interval alpha on mid-ranks.
    For the interval metric :math:`\sum_{c,k} n_{uc} n_{uk} (c-k)^2 = 2 m_u \sum_{i \in u}
    (x_i - \bar x_u)^2`, so interval (and many-valued ordinal) alpha needs only per-unit moments.
    The results equal those of the ``krippendorff`` package [3]_ to about 1e-12.

    References
    ----------
    .. [1] Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School
       for Communication, University of Pennsylvania. https://repository.upenn.edu/asc_papers/43
    .. [2] Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard
       reliability measure for coding data. Communication Methods and Measures, 1(1), 77-89.
       https://doi.org/10.1080/19312450709336664
    .. [3] Castro, S. (2017). Fast Krippendorff: fast computation of Krippendorff's alpha.
       https://github.com/pln-fing-udelar/fast-krippendorff

    Examples
    --------
    Krippendorff's worked example [1]_ (4 observers, 12 units, missing ratings):

    >>> import numpy as np
    >>> from agreement.stats import krippendorff_alpha
    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> for level in ("nominal", "ordinal", "interval", "ratio"):
    ...     print(level, round(krippendorff_alpha(data, level_of_measurement=level).value, 3))
    nominal 0.743
    ordinal 0.815
    interval 0.849
    ratio 0.797
    """
    check_choice("level_of_measurement", level_of_measurement, LEVELS)
    data = as_reliability_data(reliability_data)
    domain = _as_value_domain(value_domain)
    if domain is not None:
        _check_in_domain(data, domain)
    parts = _alpha_parts(data, level_of_measurement)
    return _result(parts, level_of_measurement)


def krippendorff_alpha_leave_one_out(reliability_data, *, level_of_measurement="nominal"):
    r"""Alpha with all raters, and with each rater left out in turn.

    A rater whose removal raises alpha markedly disagrees with the others; dashboards show the
    change per rater.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        ``np.nan`` = not rated.
    level_of_measurement : {"nominal", "ordinal", "interval", "ratio"}

    Returns
    -------
    LeaveOneOutResult
        ``value_without[r]`` is :math:`\alpha_{-r}`, alpha on the matrix without row ``r``, and
        ``change[r]`` is :math:`\alpha_{-r} - \alpha`; both are ``None`` (with ``reasons[r]``)
        when the remaining raters leave too little data.

    Raises
    ------
    InsufficientDataError
        When alpha on all raters is undefined (see :func:`krippendorff_alpha`).

    Notes
    -----
    .. math:: \Delta_r = \alpha(X_{-r}) - \alpha(X)

    where :math:`X_{-r}` drops rater :math:`r`'s row; each :math:`\alpha` is computed as in [1]_.

    References
    ----------
    .. [1] Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability.
       https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    Krippendorff's example [1]_: observer C disagrees most; without C nominal alpha rises from
    0.743.

    >>> import numpy as np
    >>> from agreement.stats.krippendorff import krippendorff_alpha_leave_one_out
    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> res = krippendorff_alpha_leave_one_out(data)
    >>> round(res.value, 3)
    0.743
    >>> int(np.argmax(res.change))
    2
    """
    check_choice("level_of_measurement", level_of_measurement, LEVELS)
    data = as_reliability_data(reliability_data)
    full = _alpha_parts(data, level_of_measurement)
    value = _alpha_value(full)
    fast = _leave_one_out_in_one_pass(data, level_of_measurement)
    if fast is not None:
        return _leave_one_out_result(*fast, value, level_of_measurement)
    without: list[float | None] = []
    change: list[float | None] = []
    reasons: list[str | None] = []
    for r in range(data.shape[0]):
        rest = np.delete(data, r, axis=0)
        try:
            if rest.shape[0] == 0:
                raise InsufficientDataError("no rater left")
            parts = _alpha_parts(rest, level_of_measurement)
        except InsufficientDataError as exc:
            without.append(None)
            change.append(None)
            reasons.append(str(exc))
            continue
        alpha_r = _alpha_value(parts)
        without.append(alpha_r)
        change.append(alpha_r - value)
        reasons.append(None)
    return LeaveOneOutResult(
        statistic="krippendorff_alpha",
        variant=level_of_measurement,
        value=value,
        value_without=tuple(without),
        change=tuple(change),
        reasons=tuple(reasons),
    )


def leave_one_out_from_ratings(
    rater, unit, values, m, *, n_raters: int, value: float, level_of_measurement: str
) -> LeaveOneOutResult:
    """:func:`krippendorff_alpha_leave_one_out` from the ratings of the units rated at least twice
    (``rater[i]`` a row below ``n_raters``, ``unit[i]``, ``values[i]``; ``m[u]`` the ratings of unit
    ``u``), with at most ``LEAVE_ONE_OUT_MAX_CATEGORIES`` distinct values and ``value``
    alpha on all of them, for callers that hold ratings rather than a matrix."""
    check_choice("level_of_measurement", level_of_measurement, LEVELS)
    if level_of_measurement == "interval":
        raise ValueError("leave_one_out_from_ratings covers the categorical levels; use a matrix for interval")
    if np.unique(values).size > _leave_one_out.MAX_CATEGORIES:
        raise ValueError(f"more than {_leave_one_out.MAX_CATEGORIES} distinct values: use a matrix")
    fast = _leave_one_out.categorical_ratings(
        rater, unit, values, np.asarray(m, dtype=np.float64), n_raters, level_of_measurement, difference_matrix
    )
    return _leave_one_out_result(*fast, value, level_of_measurement)


def _leave_one_out_result(alphas, pairable, value: float, level: str) -> LeaveOneOutResult:
    reasons = tuple(
        None
        if np.isfinite(a)
        else (
            _NO_PAIRABLE_REASON
            if n < 2
            else "a single value remains in all pairable ratings: expected disagreement is 0 and alpha is undefined"
        )
        for a, n in zip(alphas, pairable, strict=True)
    )
    return LeaveOneOutResult(
        statistic="krippendorff_alpha",
        variant=level,
        value=value,
        value_without=tuple(float(a) if np.isfinite(a) else None for a in alphas),
        change=tuple(float(a) - value if np.isfinite(a) else None for a in alphas),
        reasons=reasons,
    )


def _leave_one_out_in_one_pass(data: np.ndarray, level: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(alpha without each rater, pairable values left) from one pass, or None where the
    per-rater coincidence changes would be large (many distinct values, not interval)."""
    if level == "interval":
        return _leave_one_out.interval(data)
    if np.unique(data[~np.isnan(data)]).size <= _leave_one_out.MAX_CATEGORIES:
        return _leave_one_out.categorical(data, level, difference_matrix)
    return None


def _result(parts: _AlphaParts, level: str) -> AgreementResult:
    return AgreementResult(
        statistic="krippendorff_alpha",
        variant=level,
        value=_alpha_value(parts),
        n_units=parts.n_units,
        n_raters=parts.n_raters,
        n_pairable=parts.n,
        observed_disagreement=parts.do_sum / parts.n,
        expected_disagreement=parts.de_sum / (parts.n * (parts.n - 1)),
    )


def _alpha_value(parts: _AlphaParts) -> float:
    # alpha = 1 - D_o / D_e = 1 - (n - 1) * do_sum / de_sum, as in [1]
    return float(1.0 - (parts.n - 1) * parts.do_sum / parts.de_sum)


def _as_value_domain(value_domain) -> np.ndarray | None:
    if value_domain is None:
        return None
    try:
        domain = np.asarray(value_domain, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"value_domain must be a list of numeric values; got {value_domain!r}") from None
    if domain.ndim != 1 or domain.size == 0 or not np.isfinite(domain).all():
        raise ValueError(f"value_domain must be a non-empty 1-D list of finite numbers; got {value_domain!r}")
    return np.unique(domain)


def _check_in_domain(data: np.ndarray, domain: np.ndarray) -> None:
    for block in iter_unit_blocks(data, min_ratings=1):
        outside = ~np.isin(block.values, domain)
        if outside.any():
            bad = np.unique(block.values[outside])[:10].tolist()
            raise ValueError(f"ratings outside value_domain {domain.tolist()}: {bad}")


def _alpha_parts(data: np.ndarray, level: str) -> _AlphaParts:
    """Dispatch to the cheapest exact computation for the level and the number of distinct values."""
    low, high = value_range(data)
    if level == "ratio" and low < 0:
        raise ValueError(
            f"the ratio level needs non-negative values (a ratio scale has an absolute zero); "
            f"the smallest rating is {low}"
        )
    if level == "interval":
        return _interval_parts(data)
    if float(low).is_integer() and float(high).is_integer() and high - low < _DENSE_MAX_VALUES:
        try:
            return _dense_parts(data, level, *_integer_coder(low, high))
        except _NotIntegral:
            pass
    unit, values, m, used = gather_ratings(data)
    _check_pairable(m)
    distinct, codes, counts = np.unique(values, return_inverse=True, return_counts=True)
    if distinct.size == 1:
        raise _single_value_error(float(distinct[0]))
    if distinct.size <= _DENSE_MAX_VALUES:
        return _dense_parts(data, level, distinct, lambda v: np.searchsorted(distinct, v))
    n_units, n_raters = int(np.count_nonzero(m)), int(used.sum())
    if level == "ordinal":
        # ordinal delta = difference of mid-ranks F_c = sum_{g<c} n_g + n_c / 2 (see Notes)
        mid_ranks = np.cumsum(counts) - counts / 2.0
        n, _, m2, do_sum = _moments(unit, mid_ranks[codes], m)
        return _AlphaParts(n, n_units, n_raters, 2.0 * do_sum, 2.0 * n * m2, None)
    if level == "nominal":
        return _nominal_sorted_parts(unit, codes, counts, m, n_units, n_raters)
    return _ratio_pairs_parts(unit, values, m, distinct, counts, n_units, n_raters)


_NO_PAIRABLE_REASON = "no unit is rated by at least two raters, so no ratings are pairable and alpha is undefined"


def _check_pairable(m: np.ndarray) -> None:
    if not np.any(m):
        raise InsufficientDataError(_NO_PAIRABLE_REASON)


def _single_value_error(value: float) -> InsufficientDataError:
    return InsufficientDataError(
        f"a single value ({value:g}) is used in all pairable ratings: expected disagreement is 0 and alpha is undefined"
    )


def _integer_coder(low: float, high: float):
    """Codes ``value - low`` for integer ratings in a small range; the values are ``low .. high``."""
    values = np.arange(low, high + 1.0)

    def code(v: np.ndarray) -> np.ndarray:
        shifted = v - low
        codes = shifted.astype(np.intp)
        if not np.array_equal(codes, shifted):
            raise _NotIntegral
        return codes

    return values, code


def _block_counts(block, coder, n_codes: int) -> np.ndarray:
    """Per-unit value counts of one block, shape (width, n_codes), as float."""
    key = block.unit * n_codes + coder(block.values)
    counts = np.bincount(key, minlength=block.width * n_codes)
    return counts.reshape(block.width, n_codes).astype(np.float64)


def coincidences(data: np.ndarray, values: np.ndarray, coder):
    """Coincidence matrix o_ck of [1] over ``values``, streamed over blocks of units.

    Returns ``(o, n_units, rater_used)``; ``coder`` maps ratings to indices into ``values``.
    """
    n_codes = values.size
    o = np.zeros((n_codes, n_codes))
    diagonal = np.zeros(n_codes)
    n_units = 0
    used = np.zeros(data.shape[0], dtype=bool)
    for block in iter_unit_blocks(data, min_ratings=2, row_width=n_codes):
        if block.values.size == 0:
            continue
        counts = _block_counts(block, coder, n_codes)
        weights = block.pair_weights()
        # o_ck = sum_u n_uc (n_uk - [c = k]) / (m_u - 1), as in [1]
        o += counts.T @ (counts * weights[:, None])
        diagonal += weights @ counts
        n_units += int(np.count_nonzero(block.m))
        used |= block.rater_used
    o[np.diag_indices(n_codes)] -= diagonal
    return o, n_units, used


def coincidences_from_counts(counts: np.ndarray) -> np.ndarray:
    """Coincidence matrix o_ck of [1] from per-unit value counts (n_units, n_values), every unit
    rated at least twice."""
    weights = 1.0 / (counts.sum(axis=1) - 1.0)
    o = counts.T @ (counts * weights[:, None])
    o[np.diag_indices(counts.shape[1])] -= weights @ counts
    return o


def _dense_parts(data: np.ndarray, level: str, values: np.ndarray, coder) -> _AlphaParts:
    o, n_units, used = coincidences(data, values, coder)
    return _coincidence_parts(o, values, n_units, int(used.sum()), level)


def alpha_from_coincidences(
    o: np.ndarray, values: np.ndarray, *, n_units: int, n_raters: int, level_of_measurement: str
) -> AgreementResult:
    """Alpha from a coincidence matrix ``o`` over ``values`` (as :func:`coincidences` builds it),
    for callers that sum the per-unit coincidences themselves (e.g. over many windows of units).
    ``n_units`` and ``n_raters`` are the pairable units and the raters with a pairable rating."""
    check_choice("level_of_measurement", level_of_measurement, LEVELS)
    return _result(_coincidence_parts(o, values, n_units, n_raters, level_of_measurement), level_of_measurement)


def _coincidence_parts(o: np.ndarray, values: np.ndarray, n_units: int, n_raters: int, level: str) -> _AlphaParts:
    _check_pairable(np.array([n_units]))
    marginals = o.sum(axis=1)
    in_use = marginals > 0.5  # marginals are sums of whole pairs; guard against round-off
    o = o[np.ix_(in_use, in_use)]
    values = values[in_use]
    marginals = marginals[in_use]
    if values.size == 1:
        raise _single_value_error(float(values[0]))
    delta2 = difference_matrix(level, values, marginals)
    n = int(round(marginals.sum()))
    return _AlphaParts(
        n=n,
        n_units=n_units,
        n_raters=n_raters,
        do_sum=float((o * delta2).sum()),
        de_sum=float(marginals @ delta2 @ marginals),
        single_value=None,
    )


def difference_matrix(level: str, values: np.ndarray, marginals: np.ndarray | None) -> np.ndarray:
    """Squared differences delta^2_ck of [1] between ``values`` (marginals n_c for ordinal)."""
    if level == "nominal":
        return 1.0 - np.eye(values.size)
    if level == "ordinal":
        if marginals is None:
            raise ValueError("ordinal differences need the values' marginals")
        mid_ranks = np.cumsum(marginals) - marginals / 2.0
        return np.subtract.outer(mid_ranks, mid_ranks) ** 2
    if level == "interval":
        return np.subtract.outer(values, values) ** 2
    total = np.add.outer(values, values)
    diff = np.subtract.outer(values, values)
    ratio = np.divide(diff, total, out=np.zeros_like(diff), where=total != 0)
    return ratio**2


def _moments(unit: np.ndarray, values: np.ndarray, m: np.ndarray):
    """Within-unit moments of one block: (n, mean, M2, sum_u m_u SS_u / (m_u - 1)).

    ``M2`` is the total sum of squared deviations from the block mean; ``SS_u`` a unit's.
    """
    width = m.size
    pairable = m >= 2
    s1 = np.bincount(unit, weights=values, minlength=width)
    unit_mean = np.zeros(width)
    np.divide(s1, m, out=unit_mean, where=pairable)
    dev = values - unit_mean[unit]
    dev *= dev
    ss = np.bincount(unit, weights=dev, minlength=width)
    mp = m[pairable].astype(np.float64)
    n = int(mp.sum())
    mean = float(s1.sum() / n)
    # elementwise products, not BLAS dot: a threaded ddot on short vectors stalls under load
    between = float((mp * (unit_mean[pairable] - mean) ** 2).sum())
    m2 = float(ss.sum()) + between
    do_half = float((ss[pairable] * mp / (mp - 1.0)).sum())
    return n, mean, m2, do_half


def _interval_parts(data: np.ndarray) -> _AlphaParts:
    """Interval alpha from per-unit moments, combined across blocks (Chan et al.'s update)."""
    n_total, mean_total, m2_total, do_half = 0, 0.0, 0.0, 0.0
    n_units = 0
    used = np.zeros(data.shape[0], dtype=bool)
    shift = None
    for block in iter_unit_blocks(data, min_ratings=2):
        if block.values.size == 0:
            continue
        if shift is None:
            # centring on a data value keeps sums small and makes "all equal" exactly 0
            shift = float(block.values[0])
        n_b, mean_b, m2_b, do_b = _moments(block.unit, block.values - shift, block.m)
        delta = mean_b - mean_total
        n_new = n_total + n_b
        m2_total += m2_b + delta * delta * n_total * n_b / n_new
        mean_total += delta * n_b / n_new
        n_total = n_new
        do_half += do_b
        n_units += int(np.count_nonzero(block.m))
        used |= block.rater_used
    _check_pairable(np.array([n_units]))
    assert shift is not None  # set by the first block with values, which a pairable unit is in
    if m2_total == 0.0:
        raise _single_value_error(shift)
    # sum_{c,k} n_uc n_uk (c-k)^2 = 2 m_u SS_u  and  sum_{c,k} n_c n_k (c-k)^2 = 2 n M2 (Notes)
    return _AlphaParts(
        n=n_total,
        n_units=n_units,
        n_raters=int(used.sum()),
        do_sum=2.0 * do_half,
        de_sum=2.0 * n_total * m2_total,
        single_value=None,
    )


def _nominal_sorted_parts(unit, codes, counts, m, n_units, n_raters) -> _AlphaParts:
    """Nominal alpha with many distinct values: per-unit sum of squared value counts by sorting."""
    n_codes = counts.size
    key = unit.astype(np.int64) * n_codes + codes
    key.sort()
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    runs = np.diff(np.r_[starts, key.size]).astype(np.float64)
    sq = np.bincount(key[starts] // n_codes, weights=runs * runs, minlength=m.size)
    pairable = m >= 2
    mp = m[pairable].astype(np.float64)
    n = int(mp.sum())
    # sum_{c != k} n_uc n_uk = m_u^2 - sum_c n_uc^2, and likewise for the marginals [1]
    do_sum = float(((mp * mp - sq[pairable]) / (mp - 1.0)).sum())
    de_sum = float(n) * n - float(counts.astype(np.float64) @ counts)
    return _AlphaParts(n, n_units, n_raters, do_sum, de_sum, None)


def _ratio_pairs_parts(unit, values, m, distinct, counts, n_units, n_raters) -> _AlphaParts:
    """Ratio alpha with many distinct values: within-unit pairs, then value pairs in chunks."""
    order = np.argsort(unit, kind="stable")
    unit, values = unit[order], values[order]
    m_of = m[unit]
    first = np.r_[0, np.cumsum(m[m > 0])[:-1]]
    position = np.arange(unit.size) - np.repeat(first, m[m > 0])
    do_sum = 0.0
    candidates = np.arange(unit.size)
    lag = 1
    # pairs (i, i + lag) inside a unit, one vectorised pass per lag (not per unit)
    while candidates.size:
        candidates = candidates[position[candidates] + lag < m_of[candidates]]
        if not candidates.size:
            break
        a, b = values[candidates], values[candidates + lag]
        total = a + b
        ratio = np.divide(a - b, total, out=np.zeros_like(a), where=total != 0)
        do_sum += 2.0 * float((ratio * ratio / (m_of[candidates] - 1.0)).sum())
        lag += 1
    de_sum = 0.0
    weights = counts.astype(np.float64)
    chunk = max(1, (1 << 22) // distinct.size)
    for start in range(0, distinct.size, chunk):
        c = distinct[start : start + chunk, None]
        total = c + distinct[None, :]
        ratio = np.divide(c - distinct[None, :], total, out=np.zeros(total.shape), where=total != 0)
        de_sum += float(weights[start : start + chunk] @ (ratio * ratio) @ weights)
    n = int(m.sum())
    return _AlphaParts(n, n_units, n_raters, do_sum, de_sum, None)
