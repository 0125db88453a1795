"""Study design: how many doubly-annotated units a target confidence-interval width needs."""

import math

import numpy as np
from scipy import stats

from . import krippendorff as _kripp
from ._validation import as_generator, check_choice, check_confidence_level
from .errors import InsufficientDataError
from .kappa import kappa_variances
from .results import SampleSizeResult

DESIGN_STATISTICS = ("cohen_kappa", "krippendorff_alpha")


def units_for_ci_width(
    *,
    expected_value,
    ci_width,
    statistic="cohen_kappa",
    prevalence=None,
    n_categories=2,
    n_raters=2,
    level_of_measurement="nominal",
    confidence_level=0.95,
    rng=None,
    n_simulations=200,
    pilot_units=400,
):
    r"""Number of units each rated by ``n_raters`` raters for a confidence interval of a given width.

    Parameters
    ----------
    expected_value : float
        The kappa or alpha you expect, in [0, 1).
    ci_width : float
        Full width of the interval (upper minus lower limit), e.g. 0.2 for +/- 0.1.
    statistic : {"cohen_kappa", "krippendorff_alpha"}
    prevalence : sequence of float, optional
        Expected share of each category (normalised); default equal shares of ``n_categories``.
    n_categories : int
        Used when ``prevalence`` is not given.
    n_raters : int
        Raters per unit (``"krippendorff_alpha"`` only; Cohen's kappa has two).
    level_of_measurement : {"nominal", "ordinal", "interval", "ratio"}
        For alpha; categories are coded 1..q.
    confidence_level : float
    rng : numpy.random.Generator or int
        Required for ``"krippendorff_alpha"``, which is simulated.
    n_simulations, pilot_units : int
        Simulated studies and their size (alpha only).

    Returns
    -------
    SampleSizeResult
        ``n_units`` (``int(result)``), the per-unit standard deviation :math:`\sigma_1` it came
        from, and ``method`` ("asymptotic" or "simulation").

    Raises
    ------
    ValueError
        Values out of range, unknown statistic or level, missing ``rng`` for alpha.

    Notes
    -----
    Ratings follow the mixture model behind kappa: with probability :math:`\kappa` a unit is
    "determinate" and all raters give the same category, drawn from the prevalences :math:`p`;
    otherwise each rater draws independently from :math:`p`. The expected two-rater table is
    :math:`P = (1-\kappa)\,p p^\top + \kappa\,\mathrm{diag}(p)`, whose kappa is :math:`\kappa`,
    and alpha's expected value is :math:`\kappa` too (disagreement only in random units).
    A large-sample interval has width :math:`2 z_{1-\alpha/2} \sigma_1/\sqrt{n}`, so

    .. math:: n = \left\lceil \left(\frac{2\, z_{1-\alpha/2}\, \sigma_1}{w}\right)^2 \right\rceil .

    For Cohen's kappa :math:`\sigma_1^2` is the Fleiss-Cohen-Everitt variance [1]_ of :math:`P`
    (the standard error :func:`cohen_kappa` reports, times :math:`\sqrt n`). For alpha
    :math:`\sigma_1` is estimated by simulating ``n_simulations`` studies of ``pilot_units``
    units and scaling their standard deviation by :math:`\sqrt{\text{pilot\_units}}` [2]_.
    The simpler approximation of Cohen (1960), :math:`\sigma_1^2 \approx p_o(1-p_o)/(1-p_e)^2`,
    ignores the sampling error of :math:`p_e` and gives other numbers.

    References
    ----------
    .. [1] Fleiss, J. L., Cohen, J., & Everitt, B. S. (1969). Large sample standard errors of
       kappa and weighted kappa. Psychological Bulletin, 72(5), 323-327.
       https://doi.org/10.1037/h0028106
    .. [2] Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard
       reliability measure for coding data. Communication Methods and Measures, 1(1), 77-89.
       https://doi.org/10.1080/19312450709336664
    .. [3] Donner, A., & Rotondi, M. A. (2010). Sample size requirements for interval
       estimation of the kappa statistic for interobserver agreement studies with a binary
       outcome and multiple raters. International Journal of Biostatistics, 6(1), 31.
       https://doi.org/10.2202/1557-4679.1275

    Examples
    --------
    Expected kappa 0.6 on a balanced yes/no label, 95% interval of width 0.2 (+/- 0.1):

    >>> from agreement.stats.study_design import units_for_ci_width
    >>> units_for_ci_width(expected_value=0.6, ci_width=0.2).n_units
    246

    At kappa 0.6 with balanced classes the Fleiss-Cohen-Everitt variance equals Cohen's (1960)
    approximation, :math:`p_o(1-p_o)/(1-p_e)^2 = 0.8 \cdot 0.2 / 0.25 = 0.64`, which gives
    :math:`(2 \cdot 1.96 \cdot 0.8 / 0.2)^2 = 245.9`, i.e. 246 units.
    """
    check_choice("statistic", statistic, DESIGN_STATISTICS)
    check_choice("level_of_measurement", level_of_measurement, _kripp.LEVELS)
    level = check_confidence_level(confidence_level)
    kappa = _in_range("expected_value", expected_value, 0.0, 1.0, upper_open=True)
    width = _in_range("ci_width", ci_width, 0.0, 2.0, lower_open=True)
    p = _prevalence(prevalence, n_categories)
    z = float(stats.norm.ppf(0.5 + level / 2.0))
    if statistic == "cohen_kappa":
        table = (1.0 - kappa) * np.outer(p, p) + kappa * np.diag(p)
        _, _, _, var1, _ = kappa_variances(table, np.eye(p.size))
        sigma, method, raters = math.sqrt(max(var1, 0.0)), "asymptotic", 2
    else:
        if rng is None:
            raise ValueError("rng is required for krippendorff_alpha: the per-unit spread is simulated")
        raters = int(n_raters)
        if raters < 2:
            raise ValueError(f"n_raters must be at least 2; got {n_raters!r}")
        sigma = _simulated_sigma(
            kappa, p, raters, level_of_measurement, as_generator(rng), int(n_simulations), int(pilot_units)
        )
        method = "simulation"
    # a tiny relative slack keeps exact-integer cases (245.9 -> 246, not 247 by round-off)
    n_units = max(2, math.ceil((2.0 * z * sigma / width) ** 2 * (1 - 1e-12)))
    return SampleSizeResult(
        statistic=statistic,
        n_units=n_units,
        expected_value=kappa,
        ci_width=width,
        confidence_level=level,
        n_raters=raters,
        unit_standard_deviation=sigma,
        method=method,
    )


def _simulated_sigma(kappa, p, n_raters, level, gen, n_simulations, pilot_units) -> float:
    if n_simulations < 10 or pilot_units < 20:
        raise ValueError("n_simulations must be >= 10 and pilot_units >= 20")
    codes = np.arange(1.0, p.size + 1.0)
    alphas = []
    for _ in range(n_simulations):
        determinate = gen.random(pilot_units) < kappa
        common = gen.choice(codes, size=pilot_units, p=p)
        independent = gen.choice(codes, size=(n_raters, pilot_units), p=p)
        data = np.where(determinate, common, independent)
        try:
            alphas.append(_kripp.krippendorff_alpha(data, level_of_measurement=level).value)
        except InsufficientDataError:
            continue
    if len(alphas) < n_simulations // 2:
        raise ValueError("the simulated studies were mostly degenerate; increase pilot_units")
    return float(np.std(alphas, ddof=1) * math.sqrt(pilot_units))


def _prevalence(prevalence, n_categories) -> np.ndarray:
    if prevalence is None:
        q = int(n_categories)
        if q < 2:
            raise ValueError(f"n_categories must be at least 2; got {n_categories!r}")
        return np.full(q, 1.0 / q)
    p = np.asarray(prevalence, dtype=np.float64)
    if p.ndim != 1 or p.size < 2 or (p < 0).any() or not np.isfinite(p).all() or (p > 0).sum() < 2:
        raise ValueError(f"prevalence must list at least two non-negative category shares; got {prevalence!r}")
    return p / p.sum()


def _in_range(name, value, low, high, *, lower_open=False, upper_open=False) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number; got {value!r}") from None
    too_low = x <= low if lower_open else x < low
    too_high = x >= high if upper_open else x > high
    if too_low or too_high or math.isnan(x):
        left, right = ("(" if lower_open else "["), (")" if upper_open else "]")
        raise ValueError(f"{name} must be in {left}{low}, {high}{right}; got {value!r}")
    return x
