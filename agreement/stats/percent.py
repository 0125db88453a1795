"""Raw agreement: mean pairwise agreement, unanimity, and agreement specific to each category."""

import numpy as np

from ._validation import as_categories, as_reliability_data, value_range
from .errors import InsufficientDataError
from .reliability_data import counts_and_raters


def percent_agreement(reliability_data):
    r"""Mean pairwise agreement: the share of agreeing rater pairs, averaged over units.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        ``np.nan`` = not rated; raters per unit may vary.

    Returns
    -------
    float
        :math:`p_a` in [0, 1]. For two raters it is the share of units rated identically.
        (Not to be confused with :func:`unanimous_agreement`, the share of units on which all
        raters agree.)

    Raises
    ------
    InsufficientDataError
        Empty input or no unit rated by at least two raters.

    Notes
    -----
    For units with :math:`r_i \ge 2` ratings, :math:`n'` of them [1]_ [2]_:

    .. math::

        p_a = \frac{1}{n'} \sum_{i:\,r_i \ge 2} \sum_k \frac{r_{ik}(r_{ik} - 1)}{r_i (r_i - 1)}.

    It is Fleiss' :math:`\bar P` and the :math:`p_a` of AC1, so it explains those coefficients.
    No correction for chance: a single category in use gives 1.

    References
    ----------
    .. [1] Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
       Psychological Bulletin, 76(5), 378-382. https://doi.org/10.1037/h0031619
    .. [2] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 2.

    Examples
    --------
    Gwet's ``cac.raw4raters`` data: irrCAC's ``pa.coeff.raw`` prints 0.8181818.

    >>> import numpy as np
    >>> from agreement.stats import percent_agreement
    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> round(percent_agreement(data), 7)
    0.8181818
    """
    counts, _, _ = counts_and_raters(reliability_data, None)
    return percent_agreement_from_counts(counts)


def percent_agreement_from_counts(counts) -> float:
    """:func:`percent_agreement` from per-unit category counts, shape (n_units, K)."""
    counts = np.asarray(counts, dtype=np.float64)
    r_i = counts.sum(axis=1)
    multi = r_i >= 2
    if not multi.any():
        raise InsufficientDataError("no unit is rated by at least two raters, so no pair can agree")
    c, r = counts[multi], r_i[multi]
    return float(((c * (c - 1.0)).sum(axis=1) / (r * (r - 1.0))).mean())


def unanimous_agreement(reliability_data):
    r"""Share of units on which every rater gave the same value ("all raters identical").

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        ``np.nan`` = not rated.

    Returns
    -------
    float
        Among units rated at least twice, the share with a single distinct value.

    Raises
    ------
    InsufficientDataError
        Empty input or no unit rated by at least two raters.

    Notes
    -----
    .. math:: U = \frac{1}{n'} \sum_{i:\,r_i \ge 2} [\min_r x_{ri} = \max_r x_{ri}]

    Stricter than :func:`percent_agreement` as soon as there are three raters [1]_.

    References
    ----------
    .. [1] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., ch. 1
       (percent agreement and its variants).

    Examples
    --------
    Krippendorff's 12-unit example: 8 of the 11 units rated at least twice are unanimous.

    >>> import numpy as np
    >>> from agreement.stats.percent import unanimous_agreement
    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> round(unanimous_agreement(data), 4)
    0.7273
    """
    data = as_reliability_data(reliability_data)
    value_range(data)
    multi = (~np.isnan(data)).sum(axis=0) >= 2
    if not multi.any():
        raise InsufficientDataError("no unit is rated by at least two raters")
    low = np.fmin.reduce(data[:, multi], axis=0)
    high = np.fmax.reduce(data[:, multi], axis=0)
    return float((low == high).mean())


def specific_agreement(reliability_data, *, categories=None):
    r"""Agreement specific to each category (positive / negative agreement for binary labels).

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        ``np.nan`` = not rated.
    categories : sequence of float, optional
        Declared categories; default the observed ones.

    Returns
    -------
    dict
        Category -> proportion of specific agreement in [0, 1], or ``None`` for a declared
        category no rater used on a unit rated twice (undefined, not 0).

    Raises
    ------
    InsufficientDataError
        Empty input or no unit rated by at least two raters.

    Notes
    -----
    Given that one rater chose :math:`k`, the probability that another rater of the same unit
    also did [1]_ [2]_:

    .. math::

        p_s(k) = \frac{\sum_i r_{ik}(r_{ik} - 1)}{\sum_i r_{ik}(r_i - 1)},

    Uebersax's estimator [2]_: the agreeing ordered pairs of ratings over all ordered pairs that
    start with a :math:`k`, pooled over units (a unit with more raters weighs more; units rated
    once add nothing). For two raters it is :math:`2a / (2a + b + c)` (positive agreement of a
    2x2 table with :math:`a` both positive and :math:`b, c` split).

    References
    ----------
    .. [1] Cicchetti, D. V., & Feinstein, A. R. (1990). High agreement but low kappa: II.
       Resolving the paradoxes. Journal of Clinical Epidemiology, 43(6), 551-558.
       https://doi.org/10.1016/0895-4356(90)90159-M
    .. [2] Uebersax, J. S. (1982). A design-independent method for measuring the reliability of
       psychiatric diagnosis. Journal of Psychiatric Research, 17(4), 335-342.
       https://doi.org/10.1016/0022-3956(82)90039-5

    Examples
    --------
    The paradox example (180 both negative, 5 both positive, 10 and 5 split): agreement is
    0.925 overall, but only 0.4 on the positive category:

    >>> import numpy as np
    >>> from agreement.stats.percent import specific_agreement
    >>> a = np.repeat([0, 1, 1, 0], [180, 5, 10, 5])
    >>> b = np.repeat([0, 1, 0, 1], [180, 5, 10, 5])
    >>> {k: round(v, 3) for k, v in specific_agreement([a, b]).items()}
    {0.0: 0.96, 1.0: 0.4}
    """
    counts, cats, _ = counts_and_raters(reliability_data, as_categories(categories))
    return specific_agreement_from_counts(counts, cats)


def specific_agreement_from_counts(counts, categories) -> dict:
    """:func:`specific_agreement` from per-unit counts over the declared ``categories``, shape (n_units, K)."""
    counts, cats = np.asarray(counts, dtype=np.float64), as_categories(categories)
    if cats is None:
        raise ValueError("categories are required: they name the columns of counts")
    r_i = counts.sum(axis=1)
    multi = r_i >= 2
    if not multi.any():
        raise InsufficientDataError("no unit is rated by at least two raters")
    c, r = counts[multi], r_i[multi]
    agreeing = (c * (c - 1.0)).sum(axis=0)
    paired = (c * (r - 1.0)[:, None]).sum(axis=0)  # ordered pairs starting with each category [2]
    return {float(cat): (float(agreeing[k] / paired[k]) if paired[k] > 0 else None) for k, cat in enumerate(cats)}
