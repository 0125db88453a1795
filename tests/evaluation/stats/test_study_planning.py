"""Study planning: variance components recovered from simulated pilots, the planner's power against
a direct simulation of every rating and against the noncentral t, interval widths, interim answers."""

import numpy as np
import pytest
from scipy import stats

from evaluation.stats import (
    InsufficientDataError,
    VarianceComponents,
    design_power,
    interim_answer,
    items_for_half_width,
    items_for_power,
    power_curve,
    variance_components,
)

TRUE = {"item": 1.0, "item_system": 0.25, "rater": 0.49, "residual": 0.36}
# the TRUE components as a mean-difference design sees them (no system spread of its own)
MEAN_DIFFERENCE = VarianceComponents(*TRUE.values(), 0.0, 0, 0, 0)


def _mean_difference(planner, seed: int, **design):
    """``planner`` (design_power, items_for_power, ...) on the TRUE components' mean difference."""
    return planner(MEAN_DIFFERENCE, comparison="mean_difference", rng=np.random.default_rng(seed), **design)


def _pilot(rng, n_items=400, n_systems=3, k=3, pool=60, missing=0.2):
    """Crossed ratings: each item rated on every system by k distinct raters from a pool."""
    raters = np.argsort(rng.random((n_items, pool)), axis=1)[:, :k]
    i, s, slot = (g.ravel() for g in np.meshgrid(np.arange(n_items), np.arange(n_systems), np.arange(k), indexing="ij"))
    rater = raters[i, slot]
    sd = {name: np.sqrt(v) for name, v in TRUE.items()}
    y = (
        np.linspace(0, 0.6, n_systems)[s]
        + rng.normal(0, sd["item"], n_items)[i]
        + rng.normal(0, sd["item_system"], (n_items, n_systems))[i, s]
        + rng.normal(0, sd["rater"], pool)[rater]
        + rng.normal(0, sd["residual"], len(i))
    )
    keep = rng.random(len(y)) >= missing
    return y[keep], i[keep], s[keep], rater[keep]


def test_variance_components_recovered_from_unbalanced_pilots():
    rng = np.random.default_rng(7)
    estimates = []
    for _ in range(30):
        y, i, s, r = _pilot(rng)
        c = variance_components(y, items=i, systems=s, raters=r)
        estimates.append([c.item, c.item_system, c.rater, c.residual])
        assert (c.n_items, c.n_raters) == (400, 60)
    mean, sd = np.mean(estimates, axis=0), np.std(estimates, axis=0)
    for value, spread, truth in zip(mean, sd, TRUE.values(), strict=True):
        assert abs(value - truth) < 4 * spread / np.sqrt(30) + 0.01


def test_pairwise_outcomes_have_item_and_residual_only():
    rng = np.random.default_rng(8)
    p = np.clip(0.6 + rng.normal(0, 0.15, 5000), 0, 1)
    i = np.repeat(np.arange(5000), 4)
    y = (rng.random(20_000) < p[i]).astype(float)
    c = variance_components(y, items=i, systems=np.zeros(20_000), raters=np.tile(np.arange(4), 5000))
    # the one-way ANOVA estimate on the same data: between-item mean square less within / 4
    by_item = y.reshape(5000, 4)
    within = by_item.var(axis=1, ddof=1).mean()
    assert c.item == pytest.approx(by_item.mean(axis=1).var(ddof=1) - within / 4, abs=1e-3)
    assert c.residual == pytest.approx(within, abs=1e-3)
    assert c.item == pytest.approx(np.var(p), abs=0.005)
    assert (c.item_system, c.rater) == (0.0, 0.0)


def _direct_power(rng, comparison, effect, n, k, components, sims, alpha=0.05):
    """Every rating simulated: raters with their own bias from a pool, both systems rated by the
    same raters on an item (mean difference), or win/lose outcomes drawn per rater (win rate)."""
    rejections, done = 0, 0
    while done < sims:
        b = min(2000, sims - done)
        if comparison == "mean_difference":
            pool = rng.normal(0, np.sqrt(components.rater), (b, 30))
            who = rng.integers(0, 30, (b, n, k))
            bias = np.take_along_axis(pool, who.reshape(b, -1), axis=1).reshape(b, n, k)
            u = rng.normal(0, np.sqrt(components.item), (b, n, 1))
            v = rng.normal(0, np.sqrt(components.item_system), (b, n, 2))
            e = rng.normal(0, np.sqrt(components.residual), (b, n, k, 2))
            y = np.array([0.0, effect]) + (u + v)[:, :, None, :] + bias[..., None] + e + u[..., None]
            d = y[..., 1].mean(axis=2) - y[..., 0].mean(axis=2)
            null = 0.0
        else:
            p = np.clip(effect + rng.normal(0, 0.12, (b, n)), 0, 1)
            d = rng.binomial(k, p) / k
            null = 0.5
        t = (d.mean(axis=1) - null) / (d.std(axis=1, ddof=1) / np.sqrt(n))
        rejections += int((np.abs(t) > stats.t.ppf(1 - alpha / 2, n - 1)).sum())
        done += b
    return rejections / sims


def _win_components():
    # the components of the win-rate model above: item spread of p, residual E[p(1 - p)]
    p = np.clip(0.58 + np.random.default_rng(0).normal(0, 0.12, 2_000_000), 0, 1)
    return VarianceComponents(float(np.var(p)), 0.0, 0.0, float(np.mean(p * (1 - p))), 0.0, 0, 0, 0)


@pytest.mark.parametrize("n_items", [30, 60, 120])
@pytest.mark.parametrize("raters_per_item", [1, 3])
@pytest.mark.parametrize("comparison", ["mean_difference", "win_rate"])
def test_planner_power_matches_direct_simulation_within_2_points(comparison, n_items, raters_per_item):
    rng = np.random.default_rng(n_items * 10 + raters_per_item)
    if comparison == "mean_difference":
        components, effect = MEAN_DIFFERENCE, 0.25
    else:
        components, effect = _win_components(), 0.58
    planned = design_power(
        components,
        comparison=comparison,
        effect=effect,
        n_items=n_items,
        raters_per_item=raters_per_item,
        n_simulations=20_000,
        rng=rng,
    ).power
    direct = _direct_power(rng, comparison, effect, n_items, raters_per_item, components, 20_000)
    assert abs(planned - direct) <= 0.02, (planned, direct)


def noncentral_t_power(n, *, delta, tau2, alpha=0.05):
    """Exact power of the two-sided one-sample t-test on n item statistics N(delta, tau2)."""
    critical, nc = stats.t.ppf(1 - alpha / 2, n - 1), delta * np.sqrt(n / tau2)
    return stats.nct.sf(critical, n - 1, nc) + stats.nct.cdf(-critical, n - 1, nc)


def test_one_design_pinned_to_the_noncentral_t():
    # 80 items, 2 raters each: tau^2 = 2 * 0.25 + 2 * 0.36 / 2 = 0.86; delta = 0.3
    r = _mean_difference(design_power, 1, effect=0.3, n_items=80, raters_per_item=2, n_simulations=40_000)
    exact = noncentral_t_power(80, delta=0.3, tau2=0.86)
    assert exact == pytest.approx(0.815, abs=0.001)  # normal approximation: Phi(2.893 - 1.990) = 0.817
    assert r.power == pytest.approx(exact, abs=0.01)


def test_bradley_terry_gap_is_tested_as_its_win_rate():
    c = _win_components()
    common = {"n_items": 60, "raters_per_item": 3, "n_simulations": 4000}
    bt = design_power(c, comparison="bradley_terry", effect=np.log(0.6 / 0.4), rng=np.random.default_rng(2), **common)
    wr = design_power(c, comparison="win_rate", effect=0.6, rng=np.random.default_rng(2), **common)
    assert bt.power == pytest.approx(wr.power)


def test_curve_recommends_the_cheapest_design_reaching_the_target():
    curve = _mean_difference(power_curve, 3, effect=0.3, items_grid=[40, 80, 160], raters_grid=[1, 2, 4])
    assert len(curve.points) == 9
    reaching = [p for p in curve.points if p.power >= 0.8]
    assert curve.recommended in reaching
    cost = curve.recommended.n_items * curve.recommended.raters_per_item
    assert cost == min(p.n_items * p.raters_per_item for p in reaching)
    none = _mean_difference(power_curve, 3, effect=0.01, items_grid=[10], raters_grid=[1])
    assert none.recommended is None


def test_items_for_half_width_reaches_the_width_in_simulation():
    n = items_for_half_width(MEAN_DIFFERENCE, comparison="mean_difference", half_width=0.15, raters_per_item=3)
    at, below = (
        _mean_difference(design_power, 4, effect=0.0, n_items=m, raters_per_item=3, n_simulations=20_000)
        for m in (n, n - 1)
    )
    assert at.half_width <= 0.15 + 0.001 and below.half_width > 0.15 - 0.001
    # at effect 0 the power is the test's size
    assert at.power == pytest.approx(0.05, abs=0.006)


def test_interim_answer():
    r = interim_answer([0.5, 0.2, 0.9, 0.4, 0.6, 0.3])
    t = stats.ttest_1samp([0.5, 0.2, 0.9, 0.4, 0.6, 0.3], 0.0)
    assert r.p_value == pytest.approx(t.pvalue)
    low, high = t.confidence_interval(0.95)
    assert (r.ci_low, r.ci_high) == pytest.approx((low, high))
    assert not interim_answer([0.4, 0.6, 0.5, 0.45], null=0.5).decided


def test_degenerate_inputs():
    with pytest.raises(InsufficientDataError, match="no output was rated by two raters"):
        variance_components([1.0, 2.0], items=[1, 2], systems=[0, 0], raters=[1, 1])
    with pytest.raises(ValueError, match="equally long"):
        variance_components([1.0, 2.0], items=[1], systems=[0, 0], raters=[1, 1])
    with pytest.raises(InsufficientDataError, match="two items with a value; got 1"):
        interim_answer([1.0, np.nan])
    c = MEAN_DIFFERENCE
    with pytest.raises(ValueError, match="comparison must be one of"):
        design_power(c, comparison="elo", effect=0.1, n_items=10, raters_per_item=1, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="win rate to detect must be between 0 and 1"):
        design_power(c, comparison="win_rate", effect=1.2, n_items=10, raters_per_item=1, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="at least 2 items"):
        design_power(c, comparison="win_rate", effect=0.6, n_items=1, raters_per_item=1, rng=np.random.default_rng(0))


def test_items_for_power_is_the_noncentral_t_answer_within_5_percent():
    n = _mean_difference(items_for_power, 5, effect=0.3, raters_per_item=2, target_power=0.8, n_simulations=20_000)
    smallest = next(m for m in range(2, 500) if noncentral_t_power(m, delta=0.3, tau2=0.86) >= 0.8)
    assert smallest <= n <= 1.06 * smallest + 2
    assert _mean_difference(items_for_power, 5, effect=0.0, raters_per_item=2, target_power=0.8) is None
    assert (
        _mean_difference(items_for_power, 5, effect=0.001, raters_per_item=1, target_power=0.8, max_items=1000) is None
    )
