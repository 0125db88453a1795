"""Cohen's kappa for every rater pair at once: all contingency tables from one sparse product.

A loop over pairs costs a contingency table and a kappa per pair (~100 µs each); a dashboard with
50 raters, 5 labels and 52 weekly windows has 300,000 pairs. Here the tables of all pairs come from
:math:`X X^\\top` with :math:`X` the sparse one-hot (rater × category, unit) matrix, and kappa with
its standard error is evaluated on the stack of tables with array operations.
"""

from dataclasses import dataclass

import numpy as np
from scipy import sparse, stats

from ._validation import as_categories, as_reliability_data, check_confidence_level
from ._weights import agreement_weights


@dataclass(frozen=True, kw_only=True, eq=False)
class PairKappas:
    """Arrays over the pairs ``(rater_a[p], rater_b[p])`` (row indices, ``rater_a < rater_b``) that
    share at least one unit. ``value``, ``standard_error``, ``ci_low``, ``ci_high`` are NaN where
    kappa is undefined (both raters used a single, common category)."""

    rater_a: np.ndarray
    rater_b: np.ndarray
    n_units: np.ndarray
    value: np.ndarray
    observed_agreement: np.ndarray
    expected_agreement: np.ndarray
    standard_error: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    confidence_level: float


def pairwise_contingency_tables(reliability_data, *, categories=None):
    r"""Contingency tables of every rater pair on the units both rated.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        ``np.nan`` = not rated.
    categories : sequence of float, optional
        Declared ordered categories; default those observed.

    Returns
    -------
    rater_a, rater_b : ndarray of int, shape (n_pairs,)
        Row indices of the pairs sharing at least one unit, ``rater_a < rater_b``.
    tables : ndarray, shape (n_pairs, K, K)
        ``tables[p, k, l]``: units rater_a put in category k and rater_b in category l.
    categories : ndarray, shape (K,)

    Notes
    -----
    With :math:`X` the one-hot matrix of shape :math:`(RK, N)`,
    :math:`(XX^\top)_{(i,k),(j,l)} = \#\{u : x_{iu} = c_k,\ x_{ju} = c_l\}`; its cost is the sum over
    units of the squared number of ratings, not :math:`R^2 N`.

    Examples
    --------
    >>> a, b, t, c = pairwise_contingency_tables([[1, 1, 2], [1, 2, 2]])
    >>> t[0].tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    data = as_reliability_data(reliability_data)
    n_raters = data.shape[0]
    rated = ~np.isnan(data)
    cats = as_categories(categories)
    if cats is None:
        cats = np.unique(data[rated])
    rows, cols = np.nonzero(rated)
    codes = np.searchsorted(cats, data[rows, cols])
    if codes.size and (codes.max() >= len(cats) or not np.array_equal(cats[codes], data[rows, cols])):
        raise ValueError("ratings outside the declared categories")
    k = len(cats)
    onehot = sparse.csr_matrix((np.ones(len(rows)), (rows * k + codes, cols)), shape=(n_raters * k, data.shape[1]))
    joint = (onehot @ onehot.T).toarray().reshape(n_raters, k, n_raters, k).transpose(0, 2, 1, 3)
    a, b = np.triu_indices(n_raters, 1)
    tables = joint[a, b]
    shared = tables.sum(axis=(1, 2)) > 0
    return a[shared], b[shared], tables[shared], cats


def cohen_kappa_all_pairs(reliability_data, *, weights=None, categories=None, confidence_level=0.95) -> PairKappas:
    r"""Cohen's kappa, its large-sample standard error and confidence interval for every rater pair.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        ``np.nan`` = not rated.
    weights : {None, "linear", "quadratic"} or array, shape (K, K)
        Agreement weights over the declared category positions, as in :func:`cohen_kappa`.
    categories : sequence of float, optional
        Declared ordered categories (they define the weights); default those observed.
    confidence_level : float

    Returns
    -------
    PairKappas

    Notes
    -----
    Per pair, with :math:`p` the table of proportions over :math:`n` shared units,
    :math:`p_o = \sum w_{kl} p_{kl}`, :math:`p_e = \sum w_{kl} p_{k\cdot} p_{\cdot l}` and
    :math:`\kappa = (p_o - p_e)/(1 - p_e)` [1]_ [2]_; the standard error is the non-null
    large-sample one of Fleiss, Cohen & Everitt [3]_, identical to :func:`cohen_kappa`'s.

    References
    ----------
    .. [1] Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
       Psychological Measurement 20(1), 37–46. https://doi.org/10.1177/001316446002000104
    .. [2] Cohen, J. (1968). Weighted kappa. Psychological Bulletin 70(4), 213–220.
       https://doi.org/10.1037/h0026256
    .. [3] Fleiss, J. L., Cohen, J., Everitt, B. S. (1969). Large sample standard errors of kappa
       and weighted kappa. Psychological Bulletin 72(5), 323–327. https://doi.org/10.1037/h0028106

    Examples
    --------
    The 200-comment example (90 both yes, 25 / 15 split, 70 both no): kappa ≈ 0.60.

    >>> import numpy as np
    >>> a = np.repeat([1, 1, 0, 0], [90, 15, 25, 70]).astype(float)
    >>> b = np.repeat([1, 0, 1, 0], [90, 15, 25, 70]).astype(float)
    >>> round(float(cohen_kappa_all_pairs(np.vstack([a, b])).value[0]), 3)
    0.597
    """
    a, b, tables, _ = pairwise_contingency_tables(reliability_data, categories=categories)
    return cohen_kappa_from_pair_tables(a, b, tables, weights=weights, confidence_level=confidence_level)


def cohen_kappa_from_pair_tables(rater_a, rater_b, tables, *, weights=None, confidence_level=0.95) -> PairKappas:
    """:func:`cohen_kappa_all_pairs` from the pairs' contingency tables (n_pairs, K, K) over the
    declared categories, as :func:`pairwise_contingency_tables` returns them."""
    level = check_confidence_level(confidence_level)
    a, b = np.asarray(rater_a), np.asarray(rater_b)
    tables = np.asarray(tables)
    w = agreement_weights(weights, tables.shape[1])
    n = tables.sum(axis=(1, 2)).astype(np.float64)
    p = tables / np.maximum(n, 1)[:, None, None]
    row, col = p.sum(axis=2), p.sum(axis=1)
    po = np.einsum("kl,pkl->p", w, p)
    pe = np.einsum("pk,kl,pl->p", row, w, col)
    defined = 1.0 - pe > 1e-12
    safe = np.where(defined, 1.0 - pe, 1.0)
    kappa = (po - pe) / safe
    # w-bar_i. = sum_j w_ij p_.j and w-bar_.j = sum_i w_ij p_i., per pair (Fleiss, Cohen & Everitt)
    spread = (col @ w.T)[:, :, None] + (row @ w)[:, None, :]
    var1 = (
        (p * (w[None] - spread * (1.0 - kappa)[:, None, None]) ** 2).sum(axis=(1, 2))
        - (kappa - pe * (1.0 - kappa)) ** 2
    ) / safe**2
    se = np.sqrt(np.maximum(var1, 0.0) / np.maximum(n, 1))
    quantile = float(stats.norm.ppf(0.5 + level / 2.0))
    nan = np.full(len(n), np.nan)
    value = np.where(defined, kappa, nan)
    # a constant rater: kappa 0 with a zero variance, no interval (as cohen_kappa's interval_reason)
    constant = ((tables.sum(axis=2) > 0).sum(axis=1) == 1) | ((tables.sum(axis=1) > 0).sum(axis=1) == 1)
    se = np.where(defined & ~constant, se, nan)
    return PairKappas(
        rater_a=a,
        rater_b=b,
        n_units=n.astype(np.int64),
        value=value,
        observed_agreement=po,
        expected_agreement=pe,
        standard_error=se,
        ci_low=value - quantile * se,
        ci_high=np.minimum(1.0, value + quantile * se),
        confidence_level=level,
    )


@dataclass(frozen=True, kw_only=True, eq=False)
class PairAlphas:
    """Interval alpha of every rater pair sharing at least one unit (NaN where undefined)."""

    rater_a: np.ndarray
    rater_b: np.ndarray
    n_units: np.ndarray
    value: np.ndarray


def interval_alpha_all_pairs(reliability_data) -> PairAlphas:
    r"""Krippendorff's interval alpha for every rater pair on the units both rated.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        ``np.nan`` = not rated.

    Returns
    -------
    PairAlphas

    Notes
    -----
    For two raters every shared unit holds one pair of values :math:`(x_u, y_u)`, so with
    :math:`n = 2N` pairable values, :math:`S_1 = \sum_u (x_u + y_u)` and
    :math:`S_2 = \sum_u (x_u^2 + y_u^2)`,

    .. math::

        \alpha = 1 - (n - 1) \frac{2 \sum_u (x_u - y_u)^2}{2 n S_2 - 2 S_1^2}

    (:math:`D_o` and :math:`D_e` of [1]_ at the interval level). Every sum over shared units is
    an entry of a product of the (sparse) value and indicator matrices, so all pairs cost a few
    matrix products.

    References
    ----------
    .. [1] Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability.
       https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    Two raters of Krippendorff's example [1]_ (observers A and B, interval level):

    >>> import numpy as np
    >>> nan = np.nan
    >>> ab = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...       [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3]]
    >>> round(float(interval_alpha_all_pairs(ab).value[0]), 4)
    0.9428
    """
    data = as_reliability_data(reliability_data)
    rated = ~np.isnan(data)
    rows, cols = np.nonzero(rated)
    values = data[rows, cols]
    values = values - values.mean() if values.size else values  # centring leaves alpha unchanged
    shape = data.shape
    indicator = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=shape)
    x = sparse.csr_matrix((values, (rows, cols)), shape=shape)
    x2 = sparse.csr_matrix((values * values, (rows, cols)), shape=shape)
    shared = (indicator @ indicator.T).toarray()
    s1 = (x @ indicator.T).toarray()  # s1[i, j] = sum of rater i's values on units j rated too
    s2 = (x2 @ indicator.T).toarray()
    cross = (x @ x.T).toarray()
    a, b = np.triu_indices(shape[0], 1)
    n_shared = shared[a, b]
    keep = n_shared > 0
    a, b, n_shared = a[keep], b[keep], n_shared[keep]
    n = 2.0 * n_shared
    total1 = s1[a, b] + s1[b, a]
    total2 = s2[a, b] + s2[b, a]
    observed = 2.0 * (total2 - 2.0 * cross[a, b])  # 2 sum (x - y)^2
    expected = 2.0 * (n * total2 - total1 * total1)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(expected > 1e-12 * np.maximum(1.0, n * total2), 1.0 - (n - 1.0) * observed / expected, np.nan)
    return PairAlphas(rater_a=a, rater_b=b, n_units=n_shared.astype(np.int64), value=value)
