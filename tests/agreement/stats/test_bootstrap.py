"""Bootstrap intervals: seeded, reproducible, and the fast alpha path equals plain resampling."""

import numpy as np
import pytest
from scipy import stats

from agreement.stats import InsufficientDataError, cohen_kappa, gwet_ac1, icc, krippendorff_alpha
from agreement.stats.bootstrap import bca_interval, bootstrap_alpha, bootstrap_ci
from agreement.stats.counts import bootstrap_alpha_from_counts
from tests.agreement.stats.published_data import KRIPPENDORFF_2011, SHROUT_FLEISS


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_fast_alpha_bootstrap_equals_resampling_the_matrix(level, method):
    # with BCa this also checks the one-pass jackknife against leaving each column out in turn
    rng = np.random.default_rng(11)
    data = rng.integers(1, 6, (3, 80)).astype(float)
    data[rng.random(data.shape) < 0.2] = np.nan
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    fast = bootstrap_alpha(
        data, level_of_measurement=level, rng=np.random.default_rng(5), n_resamples=200, method=method
    )
    slow = bootstrap_ci(
        lambda d: krippendorff_alpha(d, level_of_measurement=level),
        data[:, pairable],
        rng=np.random.default_rng(5),
        n_resamples=200,
        method=method,
    )
    assert fast.method == slow.method == method
    assert fast.value == pytest.approx(slow.value, abs=1e-12)
    assert fast.confidence_interval == pytest.approx(slow.confidence_interval, abs=1e-9)
    assert fast.standard_error == pytest.approx(slow.standard_error, abs=1e-9)


def test_many_valued_alpha_bootstrap_falls_back_to_resampling():
    rng = np.random.default_rng(1)
    data = rng.uniform(0, 100, (3, 50)).round(2)
    res = bootstrap_alpha(data, level_of_measurement="ordinal", rng=1, n_resamples=50)
    assert res.n_resamples == 50 and res.confidence_interval[0] <= res.confidence_interval[1]


def test_same_seed_same_interval_and_no_global_state():
    np.random.seed(0)
    first = bootstrap_alpha(KRIPPENDORFF_2011, rng=np.random.default_rng(3), n_resamples=300)
    np.random.seed(99)  # the global state must not matter
    second = bootstrap_alpha(KRIPPENDORFF_2011, rng=np.random.default_rng(3), n_resamples=300)
    assert first == second
    assert first.confidence_interval[0] < first.value < first.confidence_interval[1] <= 1.0


def test_kappa_ac1_icc_through_the_generic_bootstrap():
    a = np.repeat([1, 1, 0, 0], [90, 15, 25, 70])
    b = np.repeat([1, 0, 1, 0], [90, 15, 25, 70])
    res = bootstrap_ci(lambda d: cohen_kappa(d[0], d[1]), [a, b], rng=4, n_resamples=300, name="cohen_kappa")
    analytic = cohen_kappa(a, b)
    assert res.statistic == "cohen_kappa"
    assert res.standard_error == pytest.approx(analytic.standard_error, rel=0.25)
    assert bootstrap_ci(gwet_ac1, KRIPPENDORFF_2011, rng=4, n_resamples=100).statistic == "gwet_ac1"
    assert bootstrap_ci(icc, SHROUT_FLEISS, rng=4, n_resamples=100).value == pytest.approx(0.2898, abs=1e-4)


def _undefined_when_first_unit_is(bad_values):
    def statistic(d):
        if d[0, 0] in bad_values:
            raise InsufficientDataError("undefined on this resample")
        return float(d.mean())

    return statistic


def test_failed_replicates_are_counted():
    res = bootstrap_ci(_undefined_when_first_unit_is({3}), [[0, 1, 2, 3]], rng=0, n_resamples=400)
    assert 60 < res.n_failed < 140  # about a quarter of the resamples start with unit 3


def test_mostly_failed_replicates_raise():
    with pytest.raises(InsufficientDataError, match=r"undefined on \d+ of 400 bootstrap replicates"):
        bootstrap_ci(_undefined_when_first_unit_is({1, 2, 3}), [[0, 1, 2, 3]], rng=0, n_resamples=400)


def test_rng_is_required_and_checked():
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        bootstrap_alpha(KRIPPENDORFF_2011, rng=None)
    with pytest.raises(ValueError, match="n_resamples must be an integer of at least 2"):
        bootstrap_alpha(KRIPPENDORFF_2011, rng=1, n_resamples=1)


def _three_of_six(seed: int, n_units: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    data = np.full((6, n_units), np.nan)
    truth = rng.integers(1, 6, n_units)
    for u in range(n_units):
        data[rng.choice(6, 3, replace=False), u] = np.clip(truth[u] + rng.choice([-1, 0, 0, 1]), 1, 5)
    return data


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_block_bootstrap_is_close_to_the_unit_bootstrap(level):
    data = _three_of_six(11, 3000)
    units = bootstrap_alpha(data, level_of_measurement=level, rng=2, n_resamples=2000)
    blocks = bootstrap_alpha(data, level_of_measurement=level, rng=2, n_resamples=2000, max_blocks=300)
    assert blocks.value == units.value
    assert blocks.standard_error == pytest.approx(units.standard_error, rel=0.15)
    width = units.confidence_interval[1] - units.confidence_interval[0]
    assert blocks.confidence_interval == pytest.approx(units.confidence_interval, abs=0.15 * width)


def test_with_fewer_units_than_blocks_it_is_the_unit_bootstrap():
    data = _three_of_six(3, 150)
    plain = bootstrap_alpha(data, level_of_measurement="ordinal", rng=9, n_resamples=4000)
    blocked = bootstrap_alpha(data, level_of_measurement="ordinal", rng=10, n_resamples=4000, max_blocks=200)
    # the same resampling scheme drawn from other random numbers: equal up to Monte Carlo error
    assert blocked.standard_error == pytest.approx(plain.standard_error, rel=0.08)
    assert blocked.confidence_interval == pytest.approx(plain.confidence_interval, abs=0.02)


def test_max_blocks_is_checked():
    with pytest.raises(ValueError, match="max_blocks must be an integer of at least 20"):
        bootstrap_alpha(_three_of_six(1, 50), rng=1, max_blocks=5)


def test_the_interval_percentiles_are_np_quantiles():
    from agreement.stats.bootstrap import _percentiles

    rng = np.random.default_rng(5)
    for _ in range(2000):
        values = rng.normal(size=rng.integers(2, 700)) * rng.uniform(1e-3, 10)
        q = np.array([0.025, 0.975]) if rng.random() < 0.5 else rng.uniform(0, 1, 2)
        assert np.array_equal(_percentiles(values, q), np.quantile(values, q))


# issue 24, point 6: BCa intervals
def test_bca_equals_scipy_bootstrap_bca_on_the_same_draws():
    # scipy.stats.bootstrap draws its resamples from the generator as bootstrap_ci does
    x = np.random.default_rng(3).exponential(size=30)
    theirs = stats.bootstrap((x,), np.mean, method="BCa", n_resamples=999, rng=np.random.default_rng(5))
    ours = bootstrap_ci(lambda d: float(d[0].mean()), x[None, :], rng=np.random.default_rng(5), n_resamples=999)
    assert ours.method == "bca"
    assert ours.confidence_interval == pytest.approx(tuple(theirs.confidence_interval), abs=1e-12)


def test_bca_of_kappa_equals_scipy_paired_bca():
    rng = np.random.default_rng(8)
    a = rng.integers(0, 3, 40)
    b = np.where(rng.random(40) < 0.6, a, rng.integers(0, 3, 40))
    theirs = stats.bootstrap(
        (a, b),
        lambda x, y: cohen_kappa(x, y).value,
        paired=True,
        vectorized=False,
        method="BCa",
        n_resamples=499,
        rng=np.random.default_rng(2),
    )
    ours = bootstrap_ci(lambda d: cohen_kappa(d[0], d[1]), [a, b], rng=np.random.default_rng(2), n_resamples=499)
    assert ours.confidence_interval == pytest.approx(tuple(theirs.confidence_interval), abs=1e-12)


def test_bca_without_bias_or_skew_is_the_percentile_interval():
    replicates = np.random.default_rng(0).permutation(np.linspace(-2, 2, 4001))
    low, high = bca_interval(replicates, 0.0, np.array([-1.0, 0.0, 1.0]), confidence_level=0.9)
    assert (low, high) == pytest.approx(tuple(np.quantile(replicates, [0.05, 0.95])), abs=1e-12)


def test_bca_from_counts_equals_bca_from_the_matrix():
    from agreement.stats import unit_category_counts

    data = _three_of_six(4, 500)
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    table = unit_category_counts(data[:, pairable]).counts
    values = np.unique(data[~np.isnan(data)])
    for level in ("nominal", "ordinal"):
        matrix = bootstrap_alpha(data, level_of_measurement=level, rng=7, n_resamples=300, max_blocks=200)
        counts = bootstrap_alpha_from_counts(
            table, values, value=matrix.value, level_of_measurement=level, rng=7, n_resamples=300, max_blocks=200
        )
        assert counts == matrix and counts.method == "bca"


def test_bootstrap_method_is_checked():
    with pytest.raises(ValueError, match="unknown method 'studentized'; valid choices are 'bca', 'percentile'"):
        bootstrap_alpha(KRIPPENDORFF_2011, rng=1, method="studentized")
