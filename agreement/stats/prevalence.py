"""Prevalence and bias indices and PABAK: what makes kappa low when raw agreement is high."""

import numpy as np

from ._validation import as_categories, as_rating_pair
from .errors import InsufficientDataError


def prevalence_index(rater_a, rater_b, *, positive):
    r"""Byrt, Bishop & Carlin's prevalence index of two raters for one category.

    Parameters
    ----------
    rater_a, rater_b : array_like, shape (n_units,)
        Category codes; units missing for either rater are left out.
    positive : float
        The category treated as "positive"; every other one is "negative".

    Returns
    -------
    float
        :math:`(a - d)/n` in [-1, 1]; far from 0 when one class dominates, which drives kappa
        down at fixed agreement (the first kappa paradox).

    Raises
    ------
    InsufficientDataError
        No unit rated by both.

    Notes
    -----
    With :math:`a` units both call positive, :math:`d` both negative, :math:`n` in all [1]_:

    .. math:: \mathrm{PI} = \frac{a - d}{n}

    References
    ----------
    .. [1] Byrt, T., Bishop, J., & Carlin, J. B. (1993). Bias, prevalence and kappa. Journal of
       Clinical Epidemiology, 46(5), 423-429. https://doi.org/10.1016/0895-4356(93)90018-V

    Examples
    --------
    The paradox example (180 both negative, 5 both positive, 10 and 5 split):

    >>> import numpy as np
    >>> from agreement.stats.prevalence import prevalence_index
    >>> a = np.repeat([0, 1, 1, 0], [180, 5, 10, 5])
    >>> b = np.repeat([0, 1, 0, 1], [180, 5, 10, 5])
    >>> round(prevalence_index(a, b, positive=1), 3)
    -0.875
    """
    both_pos, a_only, b_only, both_neg, n = _two_by_two(rater_a, rater_b, positive)
    return float((both_pos - both_neg) / n)


def bias_index(rater_a, rater_b, *, positive):
    r"""Byrt, Bishop & Carlin's bias index: how differently two raters use one category.

    Parameters
    ----------
    rater_a, rater_b : array_like, shape (n_units,)
    positive : float
        The category treated as "positive".

    Returns
    -------
    float
        :math:`(b - c)/n`: positive when rater A says "positive" more often than rater B.

    Raises
    ------
    InsufficientDataError
        No unit rated by both.

    Notes
    -----
    With :math:`b` units only A calls positive and :math:`c` only B [1]_:

    .. math:: \mathrm{BI} = \frac{b - c}{n}

    References
    ----------
    .. [1] Byrt, T., Bishop, J., & Carlin, J. B. (1993). Bias, prevalence and kappa. Journal of
       Clinical Epidemiology, 46(5), 423-429. https://doi.org/10.1016/0895-4356(93)90018-V

    Examples
    --------
    The 200-comment example (90 both yes, 15 only A, 25 only B, 70 both no):

    >>> import numpy as np
    >>> from agreement.stats.prevalence import bias_index
    >>> a = np.repeat([1, 1, 0, 0], [90, 15, 25, 70])
    >>> b = np.repeat([1, 0, 1, 0], [90, 15, 25, 70])
    >>> round(bias_index(a, b, positive=1), 3)
    -0.05
    """
    both_pos, a_only, b_only, both_neg, n = _two_by_two(rater_a, rater_b, positive)
    return float((a_only - b_only) / n)


def pabak(rater_a, rater_b, *, categories=None):
    r"""Prevalence-adjusted bias-adjusted kappa of two raters.

    Parameters
    ----------
    rater_a, rater_b : array_like, shape (n_units,)
    categories : sequence of float, optional
        Declared categories; PABAK depends on their number :math:`q`. Default: observed.

    Returns
    -------
    float
        :math:`(q p_o - 1)/(q - 1)`, i.e. :math:`2 p_o - 1` for binary labels: kappa as it would
        be with balanced categories and unbiased raters.

    Raises
    ------
    InsufficientDataError
        No unit rated by both, or fewer than two categories.

    Notes
    -----
    .. math:: \mathrm{PABAK} = \frac{q\,p_o - 1}{q - 1}

    For two categories [1]_ shows :math:`\kappa = \frac{\mathrm{PABAK} - \mathrm{PI}^2 +
    \mathrm{BI}^2}{1 - \mathrm{PI}^2 + \mathrm{BI}^2}`; PABAK is Brennan-Prediger's kappa [2]_.

    References
    ----------
    .. [1] Byrt, T., Bishop, J., & Carlin, J. B. (1993). Bias, prevalence and kappa. Journal of
       Clinical Epidemiology, 46(5), 423-429. https://doi.org/10.1016/0895-4356(93)90018-V
    .. [2] Brennan, R. L., & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses, and
       alternatives. Educational and Psychological Measurement, 41(3), 687-699.

    Examples
    --------
    The paradox example: agreement 0.925 gives PABAK 0.85 while kappa is about 0.36:

    >>> import numpy as np
    >>> from agreement.stats.prevalence import pabak
    >>> a = np.repeat([0, 1, 1, 0], [180, 5, 10, 5])
    >>> b = np.repeat([0, 1, 0, 1], [180, 5, 10, 5])
    >>> round(pabak(a, b), 2)
    0.85
    """
    a, b = as_rating_pair(rater_a, rater_b)
    if a.size == 0:
        raise InsufficientDataError("no unit is rated by both raters")
    cats = as_categories(categories)
    q = np.unique(np.concatenate([a, b])).size if cats is None else cats.size
    if q < 2:
        raise InsufficientDataError("PABAK needs at least two categories; declare them with categories=...")
    po = float((a == b).mean())
    return (q * po - 1.0) / (q - 1.0)


def _two_by_two(rater_a, rater_b, positive):
    a, b = as_rating_pair(rater_a, rater_b)
    if a.size == 0:
        raise InsufficientDataError("no unit is rated by both raters")
    try:
        pos = float(positive)
    except (TypeError, ValueError):
        raise ValueError(f"positive must be the numeric code of a category; got {positive!r}") from None
    pa, pb = a == pos, b == pos
    return (
        float((pa & pb).sum()),
        float((pa & ~pb).sum()),
        float((~pa & pb).sum()),
        float((~pa & ~pb).sum()),
        float(a.size),
    )
