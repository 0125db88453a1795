r"""Planning a human evaluation from a pilot: the variance components of its ratings (items, item ×
system, raters, residual, and the spread of the systems), and, by simulation, the power of a
design (items × raters per item) to detect a difference between two systems, or the interval
width it reaches.

The model ([1]_, ch. 5; the crossed design of [2]_) for the rating of system :math:`s` on item
:math:`i` by rater :math:`r` is

.. math:: y_{isr} = \mu + \alpha_s + u_i + v_{is} + b_r + e_{isr},

with item, item × system, rater and residual effects of variances :math:`\sigma^2_u, \sigma^2_v,
\sigma^2_b, \sigma^2_e`. Every rater of an item rates all its outputs (the Likert and RankME
screens show them together), so in the paired difference of two systems on one item the item and
rater effects cancel and, with :math:`k` raters per item, the item-level difference has variance
:math:`2\sigma^2_v + 2\sigma^2_e / k`. Pairwise outcomes (1 the first system wins, ½ a tie, 0 it
loses) are one value per item and rater: an item effect and a residual.

References
----------
.. [1] R. L. Brennan, *Generalizability Theory*, Springer, 2001.
.. [2] J. Card, M. Henderson, U. Khandelwal, R. Jia, K. Mahowald and D. Jurafsky, "With Little Power
   Comes Great Responsibility", EMNLP 2020, https://aclanthology.org/2020.emnlp-main.745/.
"""

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from ._resampling import as_float_array, check_choice, check_confidence
from .errors import InsufficientDataError

COMPARISONS = ("mean_difference", "win_rate", "bradley_terry")
# simulated studies are drawn in blocks of at most this many item statistics (8 bytes each: 16 MB)
_BLOCK_CELLS = 2_000_000


@dataclass(frozen=True)
class VarianceComponents:
    """Variance components of a pilot's ratings (see the module docstring); ``systems`` is the
    variance of the system means. For pairwise outcomes ``item_system`` and ``rater`` are 0 and
    ``item`` is the spread of the items' true win rates."""

    item: float
    item_system: float
    rater: float
    residual: float
    systems: float
    n_items: int
    n_raters: int
    n_ratings: int


@dataclass(frozen=True)
class DesignPower:
    """The simulated power of a design and the mean half-width of its interval for the difference
    (or the win rate) at ``1 − alpha``."""

    n_items: int
    raters_per_item: int
    power: float
    half_width: float


@dataclass(frozen=True)
class PowerCurve:
    """Power against items, one line per raters-per-item; ``recommended`` is the design reaching
    the target with the fewest judgments (ties: fewer raters per item), or None if none does."""

    comparison: str
    effect: float
    alpha: float
    target_power: float
    points: tuple[DesignPower, ...]
    recommended: DesignPower | None


def _pair_sums(keys: np.ndarray, z: np.ndarray) -> tuple[float, float]:
    """(Σ over pairs within each group of (z_a − z_b)², number of such pairs), groups by ``keys``."""
    _, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    n = np.bincount(inverse).astype(float)
    s = np.bincount(inverse, weights=z)
    s2 = np.bincount(inverse, weights=z * z)
    return float(np.sum(n * s2 - s * s)), float(np.sum(n * (n - 1) / 2))


def variance_components(values, *, items, systems, raters) -> VarianceComponents:
    r"""Moment estimates of the variance components of crossed ratings.

    Parameters
    ----------
    values : array_like, shape (n_ratings,)
        One rating per (item, system, rater).
    items, systems, raters : array_like, shape (n_ratings,)
        Labels of each rating's item, system (output) and rater.

    Returns
    -------
    VarianceComponents

    Raises
    ------
    InsufficientDataError
        No item rated by two raters on the same system, or no rater rating two systems of an item.

    Notes
    -----
    After removing the system means, half the mean squared difference of two ratings estimates
    the sum of the variances of the effects they do not share ([1]_, the expected-mean-squares
    argument written for pairs, which needs no balance):
    same item and system, other raters: :math:`A = \sigma^2_b + \sigma^2_e`; same item and rater,
    other systems: :math:`B = \sigma^2_v + \sigma^2_e`; same item, other system and rater:
    :math:`C = \sigma^2_v + \sigma^2_b + \sigma^2_e`; other item and rater:
    :math:`D = \sigma^2_u + \sigma^2_v + \sigma^2_b + \sigma^2_e`. Hence
    :math:`\sigma^2_b = C - B`, :math:`\sigma^2_v = C - A`, :math:`\sigma^2_e = A + B - C`,
    :math:`\sigma^2_u = D - C`, each clipped at 0.

    Examples
    --------
    400 items, two systems, three raters each from a pool of 300:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> i, s, r = (g.ravel() for g in np.meshgrid(np.arange(400), np.arange(2), np.arange(3), indexing="ij"))
    >>> rater = (i * 3 + r) % 300
    >>> y = (rng.normal(0, 1.0, 400)[i] + rng.normal(0, 0.5, (400, 2))[i, s]
    ...      + rng.normal(0, 0.7, 300)[rater] + rng.normal(0, 0.6, len(i)))
    >>> c = variance_components(y, items=i, systems=s, raters=rater)
    >>> [round(v, 2) for v in (c.item, c.item_system, c.rater, c.residual)]  # true: 1, 0.25, 0.49, 0.36
    [0.97, 0.26, 0.55, 0.37]
    """
    y = as_float_array(values, "values")
    labels = [np.asarray(x) for x in (items, systems, raters)]
    if any(x.shape != y.shape for x in labels) or np.isnan(y).any():
        raise ValueError("values, items, systems and raters must be equally long, with no NaN values")
    codes = np.column_stack([np.unique(x, return_inverse=True)[1].ravel() for x in labels])
    item, system, rater = codes.T
    means = np.bincount(system, weights=y) / np.bincount(system)
    z = y - means[system]
    ss_is, n_is = _pair_sums(codes[:, [0, 1]], z)
    ss_ir, n_ir = _pair_sums(codes[:, [0, 2]], z)
    ss_i, n_i = _pair_sums(codes[:, [0]], z)
    ss_r, n_r = _pair_sums(codes[:, [2]], z)
    ss_all, n_all = _pair_sums(np.zeros((len(z), 1)), z)
    if n_is == 0:
        raise InsufficientDataError("no output was rated by two raters: the rater variance is not identified")
    a = ss_is / n_is / 2
    if len(means) < 2 or n_ir == 0:
        # one system, or pairwise outcomes (one value per item and rater): item and residual only
        d_pairs = n_all - n_i - n_r + n_ir
        d = (ss_all - ss_i - ss_r + ss_ir) / d_pairs / 2 if d_pairs else np.nan
        return VarianceComponents(
            max(d - a, 0.0), 0.0, 0.0, a, float(np.var(means)), len(set(item)), len(set(rater)), len(y)
        )
    b = ss_ir / n_ir / 2
    c_pairs = n_i - n_is - n_ir
    c = (ss_i - ss_is - ss_ir) / c_pairs / 2 if c_pairs else a + b
    d_pairs = n_all - n_i - n_r + n_ir
    d = (ss_all - ss_i - ss_r + ss_ir) / d_pairs / 2 if d_pairs else c
    return VarianceComponents(
        item=float(max(d - c, 0.0)),
        item_system=float(max(c - a, 0.0)),
        rater=float(max(c - b, 0.0)),
        residual=float(max(a + b - c, 0.0)),
        systems=float(np.var(means)),
        n_items=len(set(item)),
        n_raters=len(set(rater)),
        n_ratings=len(y),
    )


def _item_variance(components: VarianceComponents, comparison: str, raters_per_item: int) -> float:
    """Variance of one item's statistic (the paired difference, or the mean outcome)."""
    if comparison == "mean_difference":
        return 2 * components.item_system + 2 * components.residual / raters_per_item
    return components.item + components.residual / raters_per_item


def effect_on_item_scale(comparison: str, effect: float) -> float:
    """The difference to detect on the item statistic's scale: a mean difference as given, a win
    rate as its distance from ½, a Bradley–Terry gap (log-odds, two systems) as the win rate it
    implies, 1/(1 + e^{−gap}), minus ½."""
    check_choice("comparison", comparison, COMPARISONS)
    if comparison == "win_rate":
        if not 0 < effect < 1:
            raise ValueError(f"a win rate to detect must be between 0 and 1, got {effect!r}")
        return effect - 0.5
    if comparison == "bradley_terry":
        return float(special.expit(effect)) - 0.5
    return float(effect)


def design_power(
    components: VarianceComponents,
    *,
    comparison: str,
    effect: float,
    n_items: int,
    raters_per_item: int,
    alpha: float = 0.05,
    n_simulations: int = 2000,
    rng: np.random.Generator,
) -> DesignPower:
    r"""Power of a two-sided t-test over items at level ``alpha``, by simulation.

    Parameters
    ----------
    components : VarianceComponents
    comparison : {"mean_difference", "win_rate", "bradley_terry"}
        A paired difference of two systems' means; a win rate of one system against another
        (against ½); a Bradley–Terry strength gap, which for two systems is the log-odds of the
        win rate and so is tested as that win rate.
    effect : float
        The difference, win rate or gap to detect.
    n_items, raters_per_item : int
    alpha : float
    n_simulations : int
    rng : numpy.random.Generator

    Returns
    -------
    DesignPower

    Notes
    -----
    Each simulated study draws ``n_items`` item statistics
    :math:`d_i \sim N(\delta, \tau^2)` with :math:`\tau^2` from :func:`_item_variance` (the
    module docstring) and tests the mean with a one-sample t-test. A test compares the power with
    a direct simulation of every rating, rater effects included, within 2 percentage points.
    """
    check_choice("comparison", comparison, COMPARISONS)
    alpha = 1 - check_confidence(1 - alpha)
    if n_items < 2 or raters_per_item < 1:
        raise ValueError("a design needs at least 2 items and 1 rater per item")
    delta = effect_on_item_scale(comparison, effect)
    sd = np.sqrt(_item_variance(components, comparison, raters_per_item))
    mean, se = np.empty(n_simulations), np.empty(n_simulations)
    block = max(1, _BLOCK_CELLS // n_items)
    for start in range(0, n_simulations, block):
        d = delta + sd * rng.standard_normal((min(block, n_simulations - start), n_items))
        mean[start : start + len(d)] = d.mean(axis=1)
        se[start : start + len(d)] = d.std(axis=1, ddof=1) / np.sqrt(n_items)
    critical = stats.t.ppf(1 - alpha / 2, n_items - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        power = float(np.mean(np.abs(mean / se) > critical)) if sd > 0 else float(delta != 0)
    return DesignPower(n_items, raters_per_item, power, float(np.mean(critical * se)))


def power_curve(
    components: VarianceComponents,
    *,
    comparison: str,
    effect: float,
    items_grid,
    raters_grid,
    alpha: float = 0.05,
    target_power: float = 0.8,
    n_simulations: int = 2000,
    rng: np.random.Generator,
) -> PowerCurve:
    """:func:`design_power` over every (items, raters per item) of the grids, and the cheapest
    design reaching ``target_power``.

    Examples
    --------
    >>> import numpy as np
    >>> c = VarianceComponents(0.5, 0.4, 0.2, 0.8, 0.1, 100, 10, 600)
    >>> curve = power_curve(c, comparison="mean_difference", effect=0.25, items_grid=[50, 100, 200],
    ...                     raters_grid=[1, 3], rng=np.random.default_rng(0))
    >>> r = curve.recommended
    >>> (r.n_items, r.raters_per_item)
    (200, 3)
    """
    points = tuple(
        design_power(
            components,
            comparison=comparison,
            effect=effect,
            n_items=int(n),
            raters_per_item=int(k),
            alpha=alpha,
            n_simulations=n_simulations,
            rng=rng,
        )
        for k in sorted(set(raters_grid))
        for n in sorted(set(items_grid))
    )
    reaching = [p for p in points if p.power >= target_power]
    best = min(reaching, key=lambda p: (p.n_items * p.raters_per_item, p.raters_per_item), default=None)
    return PowerCurve(comparison, float(effect), float(alpha), float(target_power), points, best)


def items_for_half_width(
    components: VarianceComponents, *, comparison: str, half_width: float, raters_per_item: int, alpha: float = 0.05
) -> int:
    r"""Items needed for an interval of half-width at most ``half_width`` on the difference (or win
    rate): the smallest :math:`n` with :math:`t_{1-\alpha/2, n-1}\,\tau\,c_4(n) / \sqrt n \le w`,
    where :math:`c_4(n)` is the mean of the sample SD over :math:`\tau` (so the *expected* width).

    >>> c = VarianceComponents(0.5, 0.4, 0.2, 0.8, 0.1, 100, 10, 600)
    >>> items_for_half_width(c, comparison="mean_difference", half_width=0.2, raters_per_item=3)
    130
    """
    if half_width <= 0:
        raise ValueError(f"half_width must be positive, got {half_width!r}")
    tau = np.sqrt(_item_variance(components, comparison, raters_per_item))
    n = 2
    while True:
        c4 = np.sqrt(2 / (n - 1)) * np.exp(special.gammaln(n / 2) - special.gammaln((n - 1) / 2))
        if stats.t.ppf(1 - alpha / 2, n - 1) * tau * c4 / np.sqrt(n) <= half_width:
            return n
        n += 1 if n < 1000 else n // 100


def items_for_power(
    components: VarianceComponents,
    *,
    comparison: str,
    effect: float,
    raters_per_item: int,
    target_power: float,
    alpha: float = 0.05,
    max_items: int = 20_000,
    n_simulations: int = 2000,
    rng: np.random.Generator,
) -> int | None:
    r"""The fewest items (within 5%) whose simulated power reaches ``target_power``, or None when
    more than ``max_items`` would be needed (or the effect is 0).

    The search starts from the normal approximation
    :math:`n = ((z_{1-\alpha/2} + z_{\text{power}})\,\tau / \delta)^2` and steps up by 5% until
    :func:`design_power` reaches the target, so a handful of simulations suffice.
    """
    delta = effect_on_item_scale(comparison, effect)
    tau = np.sqrt(_item_variance(components, comparison, raters_per_item))
    if delta == 0:
        return None
    z = special.ndtri(1 - alpha / 2) + special.ndtri(target_power)
    n = max(2, int(np.ceil((z * tau / abs(delta)) ** 2)))
    while n <= max_items:
        power = design_power(
            components,
            comparison=comparison,
            effect=effect,
            n_items=n,
            raters_per_item=raters_per_item,
            alpha=alpha,
            n_simulations=n_simulations,
            rng=rng,
        ).power
        if power >= target_power:
            return n
        n = int(np.ceil(n * 1.05)) + 1
    return None


@dataclass(frozen=True)
class InterimAnswer:
    """Where a running study stands on its question: the estimate over the ``n_items`` items so
    far, its interval and two-sided p-value against ``null``, and whether the interval already
    excludes the null."""

    estimate: float
    ci_low: float
    ci_high: float
    p_value: float
    n_items: int
    decided: bool


def interim_answer(item_values, *, null: float = 0.0, alpha: float = 0.05) -> InterimAnswer:
    """The t interval and test over the item statistics collected so far (paired differences,
    or outcomes against ``null`` = ½).

    >>> r = interim_answer([0.5, 0.2, 0.9, 0.4, 0.6, 0.3])
    >>> round(r.estimate, 3), r.decided
    (0.483, True)
    """
    d = as_float_array(item_values, "item_values")
    d = d[~np.isnan(d)]
    if len(d) < 2:
        raise InsufficientDataError(f"an interim answer needs two items with a value; got {len(d)}")
    alpha = 1 - check_confidence(1 - alpha)
    se = d.std(ddof=1) / np.sqrt(len(d))
    half = stats.t.ppf(1 - alpha / 2, len(d) - 1) * se
    mean = float(d.mean())
    p = float(2 * stats.t.sf(abs(mean - null) / se, len(d) - 1)) if se > 0 else float(mean == null)
    low, high = mean - half, mean + half
    return InterimAnswer(mean, float(low), float(high), p, len(d), bool(not low <= null <= high))
