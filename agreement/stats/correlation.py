"""Pearson, Spearman and Kendall correlation between two raters, with Fisher-z intervals."""

import numpy as np
from scipy import stats

from ._validation import as_rating_pair, check_choice, check_confidence_level
from .errors import InsufficientDataError
from .results import AgreementResult

CORRELATION_METHODS = ("pearson", "spearman", "kendall")


def rater_correlation(rater_a, rater_b, *, method="pearson", confidence_level=0.95):
    r"""Correlation between two raters' scores on the units both rated.

    Parameters
    ----------
    rater_a, rater_b : array_like, shape (n_units,)
        Scores; a unit missing (NaN) for either rater is left out.
    method : {"pearson", "spearman", "kendall"}
        Kendall is :math:`\tau_b` (ties corrected).
    confidence_level : float

    Returns
    -------
    AgreementResult
        ``value`` the coefficient, ``p_value`` of scipy's test of no association, and a
        Fisher-z ``confidence_interval`` (``None`` when there are too few units for it).
        Correlation measures consistency, not agreement: a rater who always scores 10 points
        higher correlates perfectly.

    Raises
    ------
    InsufficientDataError
        Fewer than three units rated by both, or a rater who gives a single value.
    ValueError
        Unknown method, different lengths.

    Notes
    -----
    The interval back-transforms

    .. math:: \tanh\bigl(\tanh^{-1} r \pm z_{1-\alpha/2}\, s\bigr)

    with
    :math:`s = 1/\sqrt{n-3}` (Pearson), :math:`\sqrt{(1 + r^2/2)/(n-3)}` (Spearman) and
    :math:`\sqrt{0.437/(n-4)}` (Kendall), as in [1]_.

    References
    ----------
    .. [1] Bonett, D. G., & Wright, T. A. (2000). Sample size requirements for estimating
       Pearson, Kendall and Spearman correlations. Psychometrika, 65(1), 23-28.
       https://doi.org/10.1007/BF02294183
    .. [2] Anscombe, F. J. (1973). Graphs in statistical analysis. The American Statistician,
       27(1), 17-21. https://doi.org/10.1080/00031305.1973.10478966

    Examples
    --------
    Anscombe's first data set [2]_ has a correlation of 0.816:

    >>> from agreement.stats.correlation import rater_correlation
    >>> x = [10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5]
    >>> y = [8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68]
    >>> round(rater_correlation(x, y).value, 3)
    0.816
    """
    check_choice("method", method, CORRELATION_METHODS)
    level = check_confidence_level(confidence_level)
    a, b = as_rating_pair(rater_a, rater_b)
    n = a.size
    if n < 3:
        raise InsufficientDataError(f"a correlation needs at least three units rated by both raters; found {n}")
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        raise InsufficientDataError("a rater gives the same score to every unit, so the correlation is undefined")
    if method == "pearson":
        res = stats.pearsonr(a, b)
        value, p = float(res.statistic), float(res.pvalue)
        scale = 1.0 / np.sqrt(n - 3) if n > 3 else None
    elif method == "spearman":
        res = stats.spearmanr(a, b)
        value, p = float(res.statistic), float(res.pvalue)
        scale = np.sqrt((1 + value**2 / 2) / (n - 3)) if n > 3 else None
    else:
        res = stats.kendalltau(a, b)
        value, p = float(res.statistic), float(res.pvalue)
        scale = np.sqrt(0.437 / (n - 4)) if n > 4 else None
    ci = None
    if scale is not None and abs(value) < 1:
        z = np.arctanh(value)
        half = stats.norm.ppf(0.5 + level / 2) * scale
        ci = (float(np.tanh(z - half)), float(np.tanh(z + half)))
    return AgreementResult(
        statistic=f"{method}_correlation",
        variant=method,
        value=value,
        n_units=n,
        n_raters=2,
        confidence_interval=ci,
        confidence_level=level,
        p_value=p,
    )
