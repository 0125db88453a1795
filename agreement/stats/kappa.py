"""Cohen's kappa (two raters, weighted or not) and Fleiss' kappa (many raters, varying per unit)."""

import numpy as np
from scipy import stats

from ._chance import as_counts, chance_corrected
from ._validation import (
    as_categories,
    as_rating_pair,
    as_reliability_data,
    check_confidence_level,
    check_in_categories,
    value_range,
)
from ._weights import agreement_weights
from .errors import InsufficientDataError
from .reliability_data import counts_and_raters
from .results import AgreementResult, FleissKappaResult, PairResult

COHEN_WEIGHTS = (None, "linear", "quadratic")


def cohen_kappa(rater_a, rater_b, *, weights=None, categories=None, confidence_level=0.95):
    r"""Cohen's kappa between two raters, unweighted or with linear / quadratic weights.

    Parameters
    ----------
    rater_a, rater_b : array_like, shape (n_units,)
        The two raters' category codes for the same units; a unit missing (NaN) for either
        rater is left out.
    weights : {None, "linear", "quadratic"} or array, shape (K, K)
        Agreement weights. Linear and quadratic weights are built on the positions of the
        declared categories (taken as equally spaced), not on the categories observed.
    categories : sequence of float, optional
        The criterion's declared, ordered category list. Weighted kappa depends on it; default
        the categories either rater used.
    confidence_level : float

    Returns
    -------
    AgreementResult
        ``observed_agreement`` :math:`p_o`, ``expected_agreement`` :math:`p_e`, the large-sample
        ``standard_error`` of Fleiss, Cohen & Everitt [3]_ with a normal interval (upper limit
        capped at 1), and ``test_statistic`` z of kappa = 0 with the null standard error, as
        SAS PROC FREQ prints them.

    Raises
    ------
    InsufficientDataError
        No unit rated by both, or a single category in use by both (then :math:`p_e = 1`).
    ValueError
        Different lengths, an unknown weighting, a rating outside ``categories``.

    Notes
    -----
    With :math:`p_{ij}` the share of units rated :math:`i` by A and :math:`j` by B, marginals
    :math:`p_{i\cdot}, p_{\cdot j}` and weights :math:`w_{ij}` (identity when unweighted)
    [1]_ [2]_:

    .. math::

        p_o = \sum_{ij} w_{ij} p_{ij}, \quad p_e = \sum_{ij} w_{ij} p_{i\cdot} p_{\cdot j}, \quad
        \kappa = \frac{p_o - p_e}{1 - p_e},

    linear :math:`w_{ij} = 1 - |i - j|/(K - 1)`, quadratic :math:`1 - (i - j)^2/(K - 1)^2`.
    With :math:`\bar w_{i\cdot} = \sum_j w_{ij} p_{\cdot j}` and
    :math:`\bar w_{\cdot j} = \sum_i w_{ij} p_{i\cdot}`, the variances are [3]_

    .. math::

        \widehat{\mathrm{Var}}(\kappa) = \frac{\sum_{ij} p_{ij}\,[w_{ij} - (\bar w_{i\cdot} +
        \bar w_{\cdot j})(1 - \kappa)]^2 - [\kappa - p_e(1 - \kappa)]^2}{n (1 - p_e)^2},

    .. math::

        \widehat{\mathrm{Var}}_0(\kappa) = \frac{\sum_{ij} p_{i\cdot} p_{\cdot j}\,[w_{ij} -
        (\bar w_{i\cdot} + \bar w_{\cdot j})]^2 - p_e^2}{n (1 - p_e)^2}.

    References
    ----------
    .. [1] Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
       Psychological Measurement, 20(1), 37-46. https://doi.org/10.1177/001316446002000104
    .. [2] Cohen, J. (1968). Weighted kappa. Psychological Bulletin, 70(4), 213-220.
       https://doi.org/10.1037/h0026256
    .. [3] Fleiss, J. L., Cohen, J., & Everitt, B. S. (1969). Large sample standard errors of
       kappa and weighted kappa. Psychological Bulletin, 72(5), 323-327.
       https://doi.org/10.1037/h0028106

    Examples
    --------
    Two raters label 200 comments: 90 both yes, 70 both no, 15 and 25 split; observed
    agreement 0.80, chance agreement 0.504 and kappa about 0.60:

    >>> import numpy as np
    >>> from agreement.stats import cohen_kappa
    >>> a = np.repeat([1, 1, 0, 0], [90, 15, 25, 70])
    >>> b = np.repeat([1, 0, 1, 0], [90, 15, 25, 70])
    >>> res = cohen_kappa(a, b)
    >>> round(res.observed_agreement, 2), round(res.expected_agreement, 3), round(res.value, 2)
    (0.8, 0.504, 0.6)
    """
    level = check_confidence_level(confidence_level)
    _check_cohen_weights(weights)
    _, table = contingency_table(rater_a, rater_b, categories)
    return _kappa_from_table(table, weights, level)


def contingency_table(rater_a, rater_b, categories):
    """Categories and the (K, K) table of two raters on the units both rated (rows rater A)."""
    a, b = as_rating_pair(rater_a, rater_b)
    if a.size == 0:
        raise InsufficientDataError("no unit is rated by both raters")
    cats = as_categories(categories)
    if cats is None:
        cats = np.unique(np.concatenate([a, b]))
    ia = check_in_categories(a, cats, name="rater_a's ratings")
    ib = check_in_categories(b, cats, name="rater_b's ratings")
    k = cats.size
    return cats, np.bincount(ia * k + ib, minlength=k * k).reshape(k, k)


def cohen_kappa_from_table(table, *, weights=None, confidence_level=0.95):
    r"""Cohen's kappa from a K x K contingency table (rows rater A, columns rater B).

    Parameters
    ----------
    table : array_like, shape (K, K)
        ``table[i, j]`` units rated category ``i`` by A and ``j`` by B, categories in scale
        order (include empty rows/columns for declared but unused categories).
    weights : {None, "linear", "quadratic"} or array, shape (K, K)
    confidence_level : float

    Returns
    -------
    AgreementResult
        As :func:`cohen_kappa`.

    Raises
    ------
    InsufficientDataError
        An empty table, or a single category in use (:math:`p_e = 1`).
    ValueError
        Not square, negative counts, an unknown weighting.

    Notes
    -----
    The formulas of :func:`cohen_kappa` [1]_ [2]_, with

    .. math:: p_{ij} = \frac{n_{ij}}{n}, \qquad \kappa = \frac{p_o - p_e}{1 - p_e}.

    References
    ----------
    .. [1] Fleiss, J. L., Cohen, J., & Everitt, B. S. (1969). Large sample standard errors of
       kappa and weighted kappa. Psychological Bulletin, 72(5), 323-327.
       https://doi.org/10.1037/h0028106
    .. [2] SAS Institute. PROC FREQ, "Tests and Measures of Agreement" (simple and weighted
       kappa with ASE and ASE under H0).

    Examples
    --------
    The SAS printout reproduced in statsmodels' tests: kappa 0.4842 (ASE 0.1380, 95% CI
    0.2137 to 0.7547, ASE under H0 0.1484, Z 3.2626); weighted kappa 0.4701 (ASE 0.1457):

    >>> from agreement.stats.counts import cohen_kappa_from_table
    >>> table = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]
    >>> res = cohen_kappa_from_table(table)
    >>> round(res.value, 4), round(res.standard_error, 4), round(res.test_statistic, 4)
    (0.4842, 0.138, 3.2626)
    >>> [round(x, 4) for x in res.confidence_interval]
    [0.2137, 0.7547]
    >>> res = cohen_kappa_from_table(table, weights="linear")
    >>> round(res.value, 4), round(res.standard_error, 4)
    (0.4701, 0.1457)
    """
    level = check_confidence_level(confidence_level)
    _check_cohen_weights(weights)
    try:
        counts = np.asarray(table, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("table must hold counts of units") from None
    if counts.ndim != 2 or counts.shape[0] != counts.shape[1]:
        raise ValueError(f"table must be square, shape (K, K); got shape {counts.shape}")
    if not np.isfinite(counts).all() or (counts < 0).any():
        raise ValueError("table must hold non-negative counts")
    return _kappa_from_table(counts, weights, level)


def pairwise_cohen_kappa(reliability_data, *, weights=None, categories=None, confidence_level=0.95):
    r"""Cohen's kappa for every pair of raters (rows) on the units both rated.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        ``np.nan`` = not rated.
    weights : {None, "linear", "quadratic"} or array, shape (K, K)
    categories : sequence of float, optional
        Declared ordered categories; default the categories observed anywhere in the matrix,
        so every pair uses the same scale and weights.
    confidence_level : float

    Returns
    -------
    tuple of PairResult
        One per pair ``(i, j)``, ``i < j``, with ``result`` or, when that pair has too little
        data, ``result=None`` and ``reason``.

    Raises
    ------
    InsufficientDataError
        Empty input or no rating at all (a pair with too little data gets a ``reason`` instead).

    Notes
    -----
    Each pair's kappa is :func:`cohen_kappa` [1]_ on the units :math:`U_{ab}` both raters rated:

    .. math:: \kappa_{ab} = \frac{p_o(U_{ab}) - p_e(U_{ab})}{1 - p_e(U_{ab})}

    References
    ----------
    .. [1] Cohen, J. (1968). Weighted kappa. Psychological Bulletin, 70(4), 213-220.
       https://doi.org/10.1037/h0026256

    Examples
    --------
    Two raters of the 200-comment example plus a copy of rater A: kappa 0.60 for the (0, 1)
    pair, 1 for the identical pair:

    >>> import numpy as np
    >>> from agreement.stats.kappa import pairwise_cohen_kappa
    >>> a = np.repeat([1, 1, 0, 0], [90, 15, 25, 70])
    >>> b = np.repeat([1, 0, 1, 0], [90, 15, 25, 70])
    >>> [(p.rater_a, p.rater_b, round(p.result.value, 2)) for p in pairwise_cohen_kappa([a, b, a])]
    [(0, 1, 0.6), (0, 2, 1.0), (1, 2, 0.6)]
    """
    level = check_confidence_level(confidence_level)
    _check_cohen_weights(weights)
    data = as_reliability_data(reliability_data)
    value_range(data)
    cats = as_categories(categories)
    if cats is None:
        cats = np.unique(data[~np.isnan(data)])
    out = []
    for i in range(data.shape[0]):
        for j in range(i + 1, data.shape[0]):
            both = int((~np.isnan(data[i]) & ~np.isnan(data[j])).sum())
            try:
                res = cohen_kappa(data[i], data[j], weights=weights, categories=cats, confidence_level=level)
            except InsufficientDataError as exc:
                out.append(PairResult(rater_a=i, rater_b=j, n_units=both, result=None, reason=str(exc)))
            else:
                out.append(PairResult(rater_a=i, rater_b=j, n_units=both, result=res))
    return tuple(out)


def fleiss_kappa(counts, *, categories=None, confidence_level=0.95):
    r"""Fleiss' kappa for many raters, with a varying number of raters per unit.

    Parameters
    ----------
    counts : array_like, shape (n_units, n_categories)
        ``counts[i, k]`` raters who put unit ``i`` in category ``k`` (see
        :func:`unit_category_counts` and :func:`category_counts`). Rows may sum to different
        numbers; units with fewer than two ratings add no agreement information.
    categories : sequence, optional
        Labels of the columns, used as keys of ``per_category`` (default 0..K-1).
    confidence_level : float

    Returns
    -------
    FleissKappaResult
        ``value``; ``observed_agreement`` :math:`\bar P`; ``expected_agreement``
        :math:`\bar P_e`; Gwet's linearised ``standard_error`` and a Student-t interval
        (upper limit capped at 1); ``per_category`` kappas. ``test_statistic`` is the z of
        Fleiss, Nee & Landis [2]_ (as R ``irr::kappam.fleiss``) when every unit has the same
        number of raters, otherwise the t of the linearised standard error [3]_. ``n_raters``
        is the largest number of raters on a unit.

    Raises
    ------
    InsufficientDataError
        No unit rated twice, or a single category in use (:math:`\bar P_e = 1`).
    ValueError
        Counts that are negative, fractional or not 2-D.

    Notes
    -----
    With :math:`r_i` the ratings of unit :math:`i`, :math:`n` the rated units and :math:`n'` those
    rated at least twice [1]_ [3]_:

    .. math::

        P_i = \frac{\sum_k r_{ik}(r_{ik} - 1)}{r_i (r_i - 1)}, \quad
        \bar P = \frac{1}{n'} \sum_{i:\,r_i \ge 2} P_i, \quad
        p_k = \frac{1}{n}\sum_i \frac{r_{ik}}{r_i}, \quad
        \bar P_e = \sum_k p_k^2, \quad
        \kappa = \frac{\bar P - \bar P_e}{1 - \bar P_e}.

    With a constant :math:`r` this is Fleiss' (1971) kappa. The kappa of category :math:`k` is
    kappa on the table collapsed to "k" versus "not k" [1]_. The null variance of [2]_ is
    :math:`\frac{2}{n r (r-1) (\sum_k p_k q_k)^2}\bigl[(\sum_k p_k q_k)^2 - \sum_k p_k q_k
    (q_k - p_k)\bigr]` with :math:`q_k = 1 - p_k`.

    References
    ----------
    .. [1] Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
       Psychological Bulletin, 76(5), 378-382. https://doi.org/10.1037/h0031619
    .. [2] Fleiss, J. L., Nee, J. C. M., & Landis, J. R. (1979). Large sample variance of kappa
       in the case of different sets of raters. Psychological Bulletin, 86(5), 974-977.
       https://doi.org/10.1037/0033-2909.86.5.974
    .. [3] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 2 and 5.

    Examples
    --------
    The 10 subjects x 14 raters x 5 categories example (Fleiss 1971 as on Wikipedia): 0.210.

    >>> from agreement.stats import fleiss_kappa
    >>> table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
    ...          [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
    ...          [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    >>> round(fleiss_kappa(table).value, 3)
    0.21
    """
    level = check_confidence_level(confidence_level)
    table = as_counts(counts)
    labels = list(range(table.shape[1])) if categories is None else list(categories)
    if len(labels) != table.shape[1]:
        raise ValueError(f"categories names {len(labels)} columns but counts have {table.shape[1]}")
    identity = np.eye(table.shape[1])
    res = chance_corrected(table, identity, "fleiss", level)
    r_i = table.sum(axis=1)
    rated = r_i[r_i > 0]
    constant = rated.size > 0 and bool((rated == rated[0]).all()) and rated[0] >= 2
    per_category = dict(zip(labels, _per_category_kappas(table, r_i), strict=True))
    per_category_z = dict.fromkeys(labels)
    if constant:
        n, r = rated.size, float(rated[0])
        p = table[r_i > 0].sum(axis=0) / (n * r)
        pq = p * (1.0 - p)
        spq = float(pq.sum())
        # null variance of Fleiss, Nee & Landis (1979), as in R irr::kappam.fleiss
        var0 = 2.0 / (spq**2 * n * r * (r - 1.0)) * (spq**2 - float((pq * (1.0 - 2.0 * p)).sum()))
        z = res.value / np.sqrt(var0)
        p_value = float(2.0 * stats.norm.sf(abs(z)))
        se_k = np.sqrt(2.0 / (n * r * (r - 1.0)))
        per_category_z = {
            label: (None if kappa_k is None else kappa_k / se_k) for label, kappa_k in per_category.items()
        }
    else:
        z, p_value = res.t, res.p_value
    return FleissKappaResult(
        statistic="fleiss_kappa",
        value=res.value,
        n_units=res.n_units,
        n_raters=int(r_i.max()),
        observed_agreement=res.pa,
        expected_agreement=res.pe,
        standard_error=res.standard_error,
        confidence_interval=res.confidence_interval,
        confidence_level=level,
        test_statistic=None if z is None else float(z),
        p_value=p_value,
        per_category=per_category,
        per_category_z=per_category_z,
    )


def brennan_prediger_kappa(reliability_data, *, categories=None, confidence_level=0.95):
    r"""Brennan-Prediger's free-marginal kappa (Randolph's kappa for many raters).

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        Category codes; ``np.nan`` = not rated.
    categories : sequence of float, optional
        The declared category list. The coefficient depends on the number of declared
        categories :math:`q` (chance agreement :math:`1/q`), so pass it. Default: observed.
    confidence_level : float

    Returns
    -------
    AgreementResult
        With :math:`p_a`, :math:`p_e = 1/q`, Gwet's linearised standard error and a Student-t
        interval (upper limit capped at 1).

    Raises
    ------
    InsufficientDataError
        No unit rated twice, or a single category.

    Notes
    -----
    .. math:: \kappa_{BP} = \frac{p_a - 1/q}{1 - 1/q}

    with :math:`p_a` the mean pairwise agreement of :func:`percent_agreement` [1]_ [2]_. For
    two raters and two categories it equals PABAK, :math:`2p_o - 1`.

    References
    ----------
    .. [1] Brennan, R. L., & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses, and
       alternatives. Educational and Psychological Measurement, 41(3), 687-699.
       https://doi.org/10.1177/001316448104100307
    .. [2] Randolph, J. J. (2005). Free-marginal multirater kappa. Paper presented at the
       Joensuu Learning and Instruction Symposium. ERIC ED490661.
    .. [3] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 5.

    Examples
    --------
    Gwet's ``cac.raw4raters`` data, for which irrCAC prints 0.77273 (SE 0.14472):

    >>> import numpy as np
    >>> from agreement.stats.kappa import brennan_prediger_kappa
    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> res = brennan_prediger_kappa(data)
    >>> round(res.value, 5), round(res.standard_error, 5)
    (0.77273, 0.14472)
    """
    level = check_confidence_level(confidence_level)
    counts, found, n_raters = counts_and_raters(reliability_data, as_categories(categories))
    res = chance_corrected(counts, np.eye(found.size), "brennan_prediger", level)
    return res.as_result("brennan_prediger_kappa", None, n_raters, level)


def _per_category_kappas(table: np.ndarray, r_i: np.ndarray) -> list:
    """Kappa of each category against all others, as Fleiss' kappa of the collapsed 2-column table.

    Vectorised over categories; ``None`` where a category is used by nobody or by everybody.
    """
    rated = r_i > 0
    multi = r_i >= 2
    if not multi.any():
        return [None] * table.shape[1]
    c, r = table[multi], r_i[multi][:, None]
    rest = r - c
    # P_i of the collapsed table: pairs agreeing on "k" plus pairs agreeing on "not k"
    pa = ((c * (c - 1.0) + rest * (rest - 1.0)) / (r * (r - 1.0))).mean(axis=0)
    share = (table[rated] / r_i[rated][:, None]).mean(axis=0)
    pe = share**2 + (1.0 - share) ** 2
    return [None if 1.0 - e <= 1e-12 else float((a - e) / (1.0 - e)) for a, e in zip(pa, pe, strict=True)]


def _check_cohen_weights(weights) -> None:
    if weights is None or not isinstance(weights, str):
        return
    if weights not in COHEN_WEIGHTS:
        raise ValueError(
            f"unknown weights {weights!r}; valid choices are None, 'linear', 'quadratic', or a (K, K) array"
        )


def _kappa_from_table(table: np.ndarray, weights, level: float) -> AgreementResult:
    n = float(table.sum())
    if n == 0:
        raise InsufficientDataError("the table is empty: no unit is rated by both raters")
    w = agreement_weights(weights, table.shape[0])
    kappa, po, pe, var1, var0 = kappa_variances(table / n, w)
    se = float(np.sqrt(max(var1, 0.0) / n))
    se0 = float(np.sqrt(max(var0, 0.0) / n))
    quantile = float(stats.norm.ppf(0.5 + level / 2.0))
    # a rater who uses a single category leaves no null variance (0 up to round-off): no test
    z = kappa / se0 if var0 > 1e-14 else None
    reason = constant_rater_reason(table)
    ci = None if reason is not None else (kappa - quantile * se, min(1.0, kappa + quantile * se))
    return AgreementResult(
        statistic="cohen_kappa",
        variant="unweighted" if weights is None else (weights if isinstance(weights, str) else "custom"),
        value=float(kappa),
        n_units=int(round(n)),
        n_raters=2,
        observed_agreement=po,
        expected_agreement=pe,
        standard_error=None if reason is not None else se,
        confidence_interval=ci,
        confidence_level=level,
        test_statistic=None if z is None else float(z),
        p_value=None if z is None else float(2.0 * stats.norm.sf(abs(z))),
        interval_reason=reason,
    )


def constant_rater_reason(table: np.ndarray) -> str | None:
    """Why a (K, K) table (rows rater A) has no kappa interval: a rater used a single category, so
    kappa is 0 whatever the other did and its large-sample variance is 0 up to rounding, which
    would read as certainty."""
    for rater, margin in (("A", table.sum(axis=1)), ("B", table.sum(axis=0))):
        if np.count_nonzero(margin) == 1:
            return (
                f"rater {rater} used a single category: kappa is 0 whatever the other rater did, and its "
                "standard error is undefined (zero), so there is no confidence interval"
            )
    return None


def kappa_variances(p: np.ndarray, w: np.ndarray):
    """Kappa, p_o, p_e and n times its non-null and null variances for a table of proportions.

    Fleiss, Cohen & Everitt (1969); shared by cohen_kappa and the study-design helper.
    """
    row, col = p.sum(axis=1), p.sum(axis=0)
    po = float((w * p).sum())
    pe = float(row @ w @ col)
    if 1.0 - pe <= 1e-12:
        raise InsufficientDataError(
            "a single category is in use by both raters, so chance agreement is 1 and kappa is undefined"
        )
    kappa = (po - pe) / (1.0 - pe)
    w_row = w @ col  # w-bar_i. = sum_j w_ij p_.j
    w_col = row @ w  # w-bar_.j = sum_i w_ij p_i.
    spread = w_row[:, None] + w_col[None, :]
    var1 = ((p * (w - spread * (1.0 - kappa)) ** 2).sum() - (kappa - pe * (1.0 - kappa)) ** 2) / (1.0 - pe) ** 2
    var0 = ((np.outer(row, col) * (w - spread) ** 2).sum() - pe**2) / (1.0 - pe) ** 2
    return float(kappa), po, pe, float(var1), float(var0)
