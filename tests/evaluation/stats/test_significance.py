"""Paired bootstrap, approximate randomisation and Holm, against scipy and statsmodels."""

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from evaluation.stats import InsufficientDataError, compare_systems, holm, paired_test

SLEEP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
SLEEP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]


def test_randomization_approaches_the_exact_permutation_test():
    # exact paired permutation test on Student's sleep data: 4 / 2^10 = 0.0039
    r = paired_test(SLEEP_2, SLEEP_1, test="randomization", n_resamples=200_000, rng=np.random.default_rng(0))
    assert r.p_value == pytest.approx(4 / 1024, abs=0.0008)


@pytest.mark.parametrize("seed", range(3))
def test_randomization_matches_scipy_permutation_test(seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=12)
    b = a + rng.normal(0.4, 1, 12)
    exact = stats.permutation_test(
        (a, b), lambda x, y: np.mean(x - y), permutation_type="samples", n_resamples=np.inf
    ).pvalue
    mine = paired_test(a, b, test="randomization", n_resamples=50_000, rng=np.random.default_rng(1)).p_value
    assert mine == pytest.approx(exact, abs=0.01)


def test_bootstrap_test_close_to_paired_t_on_normal_data():
    rng = np.random.default_rng(8)
    a = rng.normal(size=400)
    b = a + rng.normal(0.1, 1, 400)
    mine = paired_test(a, b, n_resamples=20_000, rng=np.random.default_rng(2)).p_value
    assert mine == pytest.approx(stats.ttest_rel(a, b).pvalue, abs=0.01)


def test_missing_units_are_left_out():
    r = paired_test([1, 2, np.nan, 4], [0, 1, 5, np.nan], n_resamples=10, rng=np.random.default_rng(0))
    assert r.n_units == 2 and r.difference == 1.0


def test_holm_equals_statsmodels():
    p = np.random.default_rng(3).uniform(0, 0.2, 12)
    assert holm(p) == pytest.approx(multipletests(p, method="holm")[1])


def test_compare_systems_marks_only_real_differences():
    rng = np.random.default_rng(4)
    base = rng.normal(size=(80, 1))
    scores = np.hstack([base + 1.0, base + 0.0, base + 0.02]) + rng.normal(0, 0.3, (80, 3))
    result = {
        (c.system_a, c.system_b): c
        for c in compare_systems(scores, systems=["x", "y", "z"], n_resamples=2000, rng=np.random.default_rng(0))
    }
    assert result["x", "y"].significant and result["x", "z"].significant
    assert not result["y", "z"].significant
    assert all(c.p_holm >= c.p_value for c in result.values())


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: paired_test([1], [2], n_resamples=10, rng=np.random.default_rng(0)), "at least two units"),
        (
            lambda: paired_test([1, 2], [2, 3], test="t", n_resamples=10, rng=None),
            "'bootstrap', 'randomization'",
        ),
        (lambda: paired_test([1, 2], [2, 3], n_resamples=0), "n_resamples > 0"),
        (lambda: holm([0.5, 1.5]), "lie in \\[0, 1\\]"),
    ],
)
def test_input_validation(call, message):
    with pytest.raises(ValueError, match=message) as info:
        call()
    if "two units" in message:
        assert info.type is InsufficientDataError


@pytest.mark.parametrize("n_units", [10, 25])
def test_default_test_holds_its_size_on_small_studies(n_units):
    # issue 24, point 5: under H0 (paired differences symmetric about 0) a 5% test rejects 5% of
    # the time; the paired bootstrap rejected 11.7% at n = 10 and 6.7% at n = 25. 400 seeded
    # studies: binomial SE sqrt(.05 * .95 / 400) = 1.1%, so the bound is 5% + 2.5 SE
    rng = np.random.default_rng(24)
    replicates = 400
    rejected = 0
    for _ in range(replicates):
        a = rng.normal(size=n_units)
        b = a + rng.standard_t(3, size=n_units)  # heavy tails make the small-sample bootstrap worse
        rejected += paired_test(a, b, n_resamples=999, rng=rng).p_value <= 0.05
    se = np.sqrt(0.05 * 0.95 / replicates)
    assert rejected / replicates <= 0.05 + 2.5 * se


def test_small_studies_are_tested_by_exact_enumeration():
    # 2^10 sign flips <= n_resamples: every one is enumerated, so the p-value is exact (4 / 1024)
    r = paired_test(SLEEP_2, SLEEP_1, n_resamples=10_000, rng=np.random.default_rng(0))
    assert r.test == "randomization" and r.exact and r.n_resamples == 1024
    assert r.p_value == 4 / 1024
    big = paired_test(np.arange(200.0), np.arange(200.0)[::-1], n_resamples=100, rng=np.random.default_rng(0))
    assert big.test == "bootstrap" and not big.exact
