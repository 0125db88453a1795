"""Which values raters confuse: Krippendorff's coincidence matrix and a two-rater confusion matrix."""

import numpy as np

from . import krippendorff as _kripp
from ._units import gather_ratings
from ._validation import as_categories, as_reliability_data, check_in_categories, value_range
from .errors import InsufficientDataError
from .kappa import contingency_table
from .results import ValueMatrix


def coincidence_matrix(reliability_data, *, value_domain=None):
    r"""Krippendorff's coincidence matrix: how often each pair of values is paired within units.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        ``np.nan`` = not rated; only units rated at least twice count.
    value_domain : sequence of float, optional
        Declared values (rows/columns, in this order, including unused ones). Default: the values
        used in pairable units.

    Returns
    -------
    ValueMatrix
        ``kind="coincidence"``; ``matrix[c, k]`` = :math:`o_{ck}`, symmetric; its row sums are the
        pairable value counts :math:`n_c` and the total is :math:`n`. Off-diagonal mass shows which
        categories raters confuse.

    Raises
    ------
    InsufficientDataError
        No unit rated by at least two raters.
    ValueError
        A rating outside ``value_domain``, or more than 2,000 distinct values (use alpha's
        moment path for continuous scores instead).

    Notes
    -----
    .. math::

        o_{ck} = \sum_{u:\,m_u \ge 2} \frac{n_{uc}\,(n_{uk} - [c = k])}{m_u - 1}

    Each unit contributes :math:`m_u` pairable values, split over its :math:`m_u(m_u - 1)`
    ordered pairs of ratings by different raters [1]_.

    References
    ----------
    .. [1] Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability, section C.
       https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    Krippendorff's example [1]_: the pairable values are 9, 13, 10, 5 and 3 of the values 1 to 5,
    n = 40.

    >>> import numpy as np
    >>> from agreement.stats.coincidence import coincidence_matrix
    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> cm = coincidence_matrix(data)
    >>> cm.values.tolist(), np.round(cm.matrix.sum(axis=1), 6).tolist()
    ([1.0, 2.0, 3.0, 4.0, 5.0], [9.0, 13.0, 10.0, 5.0, 3.0])
    >>> round(float(cm.matrix[0, 0]), 4), round(float(cm.matrix[0, 1]), 4)
    (7.0, 1.3333)
    """
    data = as_reliability_data(reliability_data)
    value_range(data)
    domain = as_categories(None if value_domain is None else np.unique(np.asarray(value_domain, dtype=float)))
    _, values, m, _ = gather_ratings(data)
    if not np.any(m):
        raise InsufficientDataError("no unit is rated by at least two raters, so nothing is paired")
    if domain is None:
        domain = np.unique(values)
    else:
        check_in_categories(values, domain)
    if domain.size > _kripp._COINCIDENCE_MAX_VALUES:
        raise ValueError(
            f"{domain.size} distinct values would make a {domain.size}x{domain.size} coincidence matrix; "
            f"it is meant for at most {_kripp._COINCIDENCE_MAX_VALUES} categories"
        )
    o, _, _ = _kripp.coincidences(data, domain, lambda v: np.searchsorted(domain, v))
    return ValueMatrix(kind="coincidence", values=domain, matrix=o)


def confusion_matrix(rater_a, rater_b, *, categories=None):
    r"""Contingency table of two raters: rows rater A's category, columns rater B's.

    Parameters
    ----------
    rater_a, rater_b : array_like, shape (n_units,)
        Category codes; units missing for either are left out.
    categories : sequence of float, optional
        Declared ordered categories (rows/columns, including unused). Default: observed.

    Returns
    -------
    ValueMatrix
        ``kind="confusion"``; ``matrix[i, j]`` units A put in ``values[i]`` and B in ``values[j]``.

    Raises
    ------
    InsufficientDataError
        No unit rated by both.

    Notes
    -----
    .. math:: n_{ij} = \#\{u : a_u = c_i,\ b_u = c_j\},

    the table behind Cohen's kappa [1]_.

    References
    ----------
    .. [1] Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
       Psychological Measurement, 20(1), 37-46. https://doi.org/10.1177/001316446002000104

    Examples
    --------
    The 200-comment example (90 both yes, 15 only A, 25 only B, 70 both no), "no" = 0:

    >>> import numpy as np
    >>> from agreement.stats.coincidence import confusion_matrix
    >>> a = np.repeat([1, 1, 0, 0], [90, 15, 25, 70])
    >>> b = np.repeat([1, 0, 1, 0], [90, 15, 25, 70])
    >>> confusion_matrix(a, b).matrix.tolist()
    [[70, 25], [15, 90]]
    """
    cats, table = contingency_table(rater_a, rater_b, categories)
    return ValueMatrix(kind="confusion", values=cats, matrix=table)
