"""All-pairs Cohen's kappa from one sparse product equals the pair-by-pair computation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agreement.stats import InsufficientDataError, krippendorff_alpha
from agreement.stats.kappa import pairwise_cohen_kappa
from agreement.stats.pair_tables import cohen_kappa_all_pairs, interval_alpha_all_pairs, pairwise_contingency_tables


def sparse_ratings(seed: int, n_raters: int, n_units: int, per_unit: int, categories) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = np.full((n_raters, n_units), np.nan)
    for u in range(n_units):
        m[rng.choice(n_raters, per_unit, replace=False), u] = rng.choice(categories)
    return m


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_raters=st.integers(2, 12),
    n_units=st.integers(1, 60),
    weights=st.sampled_from([None, "linear", "quadratic"]),
)
def test_equals_pairwise_cohen_kappa_on_random_sparse_data(seed, n_raters, n_units, weights):
    categories = [1.0, 2.0, 3.0, 4.0]
    m = sparse_ratings(seed, n_raters, n_units, min(3, n_raters), categories)
    fast = cohen_kappa_all_pairs(m, weights=weights, categories=categories)
    slow = {(p.rater_a, p.rater_b): p for p in pairwise_cohen_kappa(m, weights=weights, categories=categories)}
    for k in range(len(fast.value)):
        pair = slow[(int(fast.rater_a[k]), int(fast.rater_b[k]))]
        assert pair.n_units == fast.n_units[k]
        if pair.result is None:
            assert np.isnan(fast.value[k])
            continue
        assert fast.value[k] == pytest.approx(pair.result.value, abs=1e-12)
        # the variance of a perfect-agreement pair is 0 up to rounding, whose square root is ~1e-8
        if pair.result.confidence_interval is None:  # a constant rater: no interval on either path
            assert np.isnan([fast.standard_error[k], fast.ci_low[k], fast.ci_high[k]]).all()
            continue
        assert fast.standard_error[k] == pytest.approx(pair.result.standard_error, abs=1e-7)
        assert (fast.ci_low[k], fast.ci_high[k]) == pytest.approx(pair.result.confidence_interval, abs=1e-6)
    shared = {pair for pair, p in slow.items() if p.n_units > 0}
    assert shared == set(zip(fast.rater_a.tolist(), fast.rater_b.tolist(), strict=True))


def test_published_two_rater_example():
    """Cohen's kappa of the 200-comment example (90, 15 / 25, 70): p_o 0.80, p_e 0.504, kappa 0.597 (≈ 0.60)."""
    a = np.repeat([1, 1, 0, 0], [90, 15, 25, 70]).astype(float)
    b = np.repeat([1, 0, 1, 0], [90, 15, 25, 70]).astype(float)
    result = cohen_kappa_all_pairs(np.vstack([a, b]))
    assert result.observed_agreement[0] == pytest.approx(0.80)
    assert result.expected_agreement[0] == pytest.approx(0.50375)
    assert result.value[0] == pytest.approx(0.5970, abs=5e-5)


def test_pairs_without_shared_units_are_left_out_and_single_category_pairs_are_undefined():
    m = np.array([[1, 1, np.nan, np.nan], [1, 1, np.nan, np.nan], [np.nan, np.nan, 2, 1]])
    result = cohen_kappa_all_pairs(m, categories=[1, 2])
    assert list(zip(result.rater_a, result.rater_b, strict=True)) == [(0, 1)]
    assert np.isnan(result.value[0]) and result.n_units[0] == 2


def test_ratings_outside_the_declared_categories_are_refused():
    with pytest.raises(ValueError, match="outside the declared categories"):
        pairwise_contingency_tables([[1, 7], [1, 2]], categories=[1, 2, 3])


def test_empty_input_is_insufficient():
    with pytest.raises(InsufficientDataError):
        cohen_kappa_all_pairs(np.empty((0, 0)))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_raters=st.integers(2, 8), n_units=st.integers(1, 40))
def test_interval_alpha_of_every_pair_equals_alpha_on_the_pair(seed, n_raters, n_units):
    rng = np.random.default_rng(seed)
    m = np.round(rng.uniform(0, 100, (n_raters, n_units)), 1)
    m[rng.random(m.shape) < 0.5] = np.nan
    result = interval_alpha_all_pairs(m)
    for k in range(len(result.value)):
        pair = m[[result.rater_a[k], result.rater_b[k]]]
        shared = ~np.isnan(pair).any(axis=0)
        assert result.n_units[k] == shared.sum() > 0
        try:
            expected = krippendorff_alpha(pair[:, shared], level_of_measurement="interval").value
        except InsufficientDataError:
            assert np.isnan(result.value[k])
        else:
            assert result.value[k] == pytest.approx(expected, abs=1e-9)


def test_a_pair_with_a_constant_rater_has_no_interval():
    # issue 24, point 3, as cohen_kappa: kappa 0 with a zero-width interval would read as certainty
    result = cohen_kappa_all_pairs(np.array([[2.0, 2, 2, 2], [1, 2, 1, 2], [1, 2, 2, 2]]), categories=[1, 2])
    constant = (result.rater_a == 0) & (result.rater_b == 1)
    assert result.value[constant][0] == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(result.standard_error[constant]).all()
    assert np.isnan(result.ci_low[constant]).all() and np.isnan(result.ci_high[constant]).all()
    other = (result.rater_a == 1) & (result.rater_b == 2)
    assert np.isfinite(result.ci_low[other]).all()
