"""Intraclass correlations in the six Shrout-Fleiss forms, with F tests and confidence intervals."""

import numpy as np
from scipy import stats

from ._validation import as_reliability_data, check_choice, check_confidence_level, value_range
from .errors import InsufficientDataError
from .results import IccResult

ICC_MODELS = ("ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)")


def icc(reliability_data, *, model="ICC(2,1)", confidence_level=0.95):
    r"""Intraclass correlation coefficient (Shrout & Fleiss 1979; McGraw & Wong 1996).

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        Ratings on an interval scale (sliders, Likert treated as interval); ``np.nan`` = not
        rated. Units (targets) not rated by every rater are left out (listwise, as pingouin's
        ``nan_policy="omit"``); for crowd designs without crossed raters lay the ratings out
        with :func:`rating_slot_matrix` and use a one-way model.
    model : {"ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)"}
        1: one-way random (each unit rated by different raters); 2: two-way random, absolute
        agreement; 3: two-way mixed, consistency. ``,1`` is the reliability of one rater,
        ``,k`` of the mean of the k raters.
    confidence_level : float

    Returns
    -------
    IccResult
        ``value``; the F test of ICC = 0 (``test_statistic``, ``df_numerator``,
        ``df_denominator``, ``p_value``); the confidence interval of [1]_ [2]_ (ICC(2,·) with
        Satterthwaite's degrees of freedom). ``n_units`` counts the complete units used.

    Raises
    ------
    InsufficientDataError
        Fewer than two complete units or two raters, no variation at all, or a zero denominator
        (every unit mean equal: ICC(1,k), ICC(2,·) and ICC(3,k) are then undefined).
    ValueError
        Unknown model (the valid ones are listed), malformed input.

    Notes
    -----
    From the two-way ANOVA of :math:`n` targets by :math:`k` judges: between-targets
    :math:`BMS`, between-judges :math:`JMS`, residual :math:`EMS` and within-target
    :math:`WMS = (SS_J + SS_E)/(n(k-1))` mean squares [1]_:

    .. math::

        \mathrm{ICC}(1,1) = \frac{BMS - WMS}{BMS + (k-1)WMS}, \qquad
        \mathrm{ICC}(1,k) = \frac{BMS - WMS}{BMS},

    .. math::

        \mathrm{ICC}(2,1) = \frac{BMS - EMS}{BMS + (k-1)EMS + k(JMS - EMS)/n}, \qquad
        \mathrm{ICC}(2,k) = \frac{BMS - EMS}{BMS + (JMS - EMS)/n},

    .. math::

        \mathrm{ICC}(3,1) = \frac{BMS - EMS}{BMS + (k-1)EMS}, \qquad
        \mathrm{ICC}(3,k) = \frac{BMS - EMS}{BMS}.

    The F statistics are :math:`BMS/WMS` (model 1) and :math:`BMS/EMS` (models 2, 3).

    References
    ----------
    .. [1] Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing
       rater reliability. Psychological Bulletin, 86(2), 420-428.
       https://doi.org/10.1037/0033-2909.86.2.420
    .. [2] McGraw, K. O., & Wong, S. P. (1996). Forming inferences about some intraclass
       correlation coefficients. Psychological Methods, 1(1), 30-46.
       https://doi.org/10.1037/1082-989X.1.1.30

    Examples
    --------
    Shrout & Fleiss (1979), Table 2: 6 targets rated by 4 judges, for which the paper gives
    ICC(1,1) = .17, ICC(2,1) = .29, ICC(3,1) = .71, ICC(1,4) = .44, ICC(2,4) = .62,
    ICC(3,4) = .91.

    >>> from agreement.stats import icc
    >>> judges = [[9, 6, 8, 7, 10, 6], [2, 1, 4, 1, 5, 2], [5, 3, 6, 2, 6, 4], [8, 2, 8, 6, 9, 7]]
    >>> for model in ("ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)"):
    ...     print(model, round(icc(judges, model=model).value, 2))
    ICC(1,1) 0.17
    ICC(2,1) 0.29
    ICC(3,1) 0.71
    ICC(1,k) 0.44
    ICC(2,k) 0.62
    ICC(3,k) 0.91
    """
    check_choice("model", model, ICC_MODELS)
    level = check_confidence_level(confidence_level)
    data = as_reliability_data(reliability_data)
    value_range(data)
    complete = ~np.isnan(data).any(axis=0)
    y = data[:, complete].T  # targets x judges
    n, k = y.shape
    if k < 2:
        raise InsufficientDataError("ICC needs at least two raters")
    if n < 2:
        raise InsufficientDataError(
            f"ICC needs at least two units rated by all {k} raters; found {n} (units with a missing "
            "rating are left out)"
        )
    grand = y.mean()
    ss_total = float(((y - grand) ** 2).sum())
    if ss_total == 0.0:
        raise InsufficientDataError("all ratings are equal: no variation, so the ICC is undefined")
    ss_targets = float(k * ((y.mean(axis=1) - grand) ** 2).sum())
    ss_judges = float(n * ((y.mean(axis=0) - grand) ** 2).sum())
    ss_error = ss_total - ss_targets - ss_judges
    bms = ss_targets / (n - 1)
    jms = ss_judges / (k - 1)
    ems = ss_error / ((n - 1) * (k - 1))
    wms = (ss_judges + ss_error) / (n * (k - 1))
    alpha = 1.0 - level
    kind, average = model[4], model.endswith("k)")

    # a zero denominator (every unit mean equal, nothing between units beyond raters and error)
    # leaves the coefficient undefined
    tiny = 1e-12 * ss_total
    if kind == "1":
        num, den = bms - wms, bms if average else bms + (k - 1) * wms
        f, df1, df2 = _safe_ratio(bms, wms), n - 1.0, n * (k - 1.0)
    elif kind == "3":
        num, den = bms - ems, bms if average else bms + (k - 1) * ems
        f, df1, df2 = _safe_ratio(bms, ems), n - 1.0, (n - 1.0) * (k - 1.0)
    else:
        num, single_den = bms - ems, bms + (k - 1) * ems + k * (jms - ems) / n
        # ICC(2,k) is ICC(2,1) stepped up by Spearman-Brown (its interval too): undefined with it
        den = min(abs(single_den), abs(bms + (jms - ems) / n)) if average else single_den
        f, df1, df2 = _safe_ratio(bms, ems), n - 1.0, (n - 1.0) * (k - 1.0)
    if abs(den) <= tiny:
        raise InsufficientDataError(
            f"{model} is undefined: its denominator is zero, as the unit means are all equal (no variance "
            "between units beyond the raters' and the residual)"
        )
    if kind == "2":
        value = num / (bms + (jms - ems) / n) if average else num / single_den
        ci = _icc2_interval(num / single_den, bms, jms, ems, n, k, alpha, average)
    else:
        value = num / den
        ci = _f_interval(f, df1, df2, alpha, k, average)
    p_value = None if f is None else float(stats.f.sf(f, df1, df2))
    if ci is not None:
        ci = (ci[0], min(1.0, ci[1]))
    return IccResult(
        statistic="icc",
        variant=model,
        value=float(value),
        n_units=n,
        n_raters=k,
        confidence_interval=ci,
        confidence_level=level,
        test_statistic=f,
        p_value=p_value,
        df_numerator=df1,
        df_denominator=df2,
    )


def _safe_ratio(num: float, den: float) -> float | None:
    return float(num / den) if den > 0 else None


def _f_interval(f, df1, df2, alpha, k, average):
    """Exact F-based limits for models 1 and 3 (Shrout & Fleiss 1979)."""
    if f is None:
        return None
    f_low = f / stats.f.ppf(1 - alpha / 2, df1, df2)
    f_high = f * stats.f.ppf(1 - alpha / 2, df2, df1)
    if average:
        return (float(1 - 1 / f_low), float(1 - 1 / f_high))
    return (float((f_low - 1) / (f_low + k - 1)), float((f_high - 1) / (f_high + k - 1)))


def _icc2_interval(icc21, bms, jms, ems, n, k, alpha, average):
    """Satterthwaite limits for ICC(2,1) (Shrout & Fleiss 1979); ICC(2,k) by Spearman-Brown."""
    if ems <= 0:
        return None
    fj = jms / ems
    vn = (k - 1) * (n - 1) * (k * icc21 * fj + n * (1 + (k - 1) * icc21) - k * icc21) ** 2
    vd = (n - 1) * k**2 * icc21**2 * fj**2 + (n * (1 + (k - 1) * icc21) - k * icc21) ** 2
    v = vn / vd
    f_star = stats.f.ppf(1 - alpha / 2, n - 1, v)
    f_star2 = stats.f.ppf(1 - alpha / 2, v, n - 1)
    low = n * (bms - f_star * ems) / (f_star * (k * jms + (k * n - k - n) * ems) + n * bms)
    high = n * (f_star2 * bms - ems) / (k * jms + (k * n - k - n) * ems + n * f_star2 * bms)
    if average:
        # McGraw & Wong (1996): average-measures limits from the single-measure ones
        low, high = low * k / (1 + low * (k - 1)), high * k / (1 + high * (k - 1))
    return (float(low), float(high))
