"""System scores: means and medians with cluster-bootstrap intervals, normalisation, mean ranks."""

import numpy as np
import pytest
from scipy import stats

from evaluation.stats import (
    InsufficientDataError,
    mean_ranks,
    normalise_scores,
    score_distribution,
    system_scores,
)

# Student (1908), R `sleep`: published group means 0.75 and 2.33 hours of extra sleep.
SLEEP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
SLEEP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]


def test_sleep_means_as_published():
    scores = system_scores(SLEEP_1 + SLEEP_2, systems=["1"] * 10 + ["2"] * 10, units=list(range(10)) * 2, n_resamples=0)
    assert [round(s.mean, 2) for s in scores] == [0.75, 2.33]
    assert np.isnan(scores[0].mean_ci[0])


def test_matches_numpy_on_random_data_and_intervals_cover():
    rng = np.random.default_rng(3)
    values = rng.integers(1, 6, 600).astype(float)
    systems = rng.choice(["a", "b", "c"], 600)
    units = rng.integers(0, 100, 600)
    values[::37] = np.nan
    scores = system_scores(values, systems=systems, units=units, n_resamples=300, rng=np.random.default_rng(0))
    for s in scores:
        mine = (systems == s.system) & ~np.isnan(values)
        assert s.mean == pytest.approx(values[mine].mean(), abs=1e-12)
        assert s.median == np.median(values[mine])
        assert s.n == mine.sum() and s.n_units == len(np.unique(units[mine]))
        assert s.mean_ci[0] < s.mean < s.mean_ci[1]
        assert s.median_ci[0] <= s.median <= s.median_ci[1]


def test_bootstrap_weighted_median_equals_median_of_materialised_sample():
    # one resample, checked against drawing the units and taking np.median of their ratings
    from evaluation.stats._resampling import bootstrap_counts
    from evaluation.stats.system_scores import _weighted_median

    rng = np.random.default_rng(5)
    values = np.sort(rng.normal(size=40))
    units = rng.integers(0, 15, 40)
    w = next(bootstrap_counts(15, 1, np.random.default_rng(2)))
    materialised = np.repeat(values, w[0, units].astype(int))
    assert _weighted_median(values, w[:, units])[0] == pytest.approx(np.median(materialised))


def test_same_seed_same_interval():
    args = dict(systems=["a"] * 6, units=range(6), n_resamples=100)
    first = system_scores([1, 2, 3, 4, 5, 5], rng=np.random.default_rng(7), **args)
    again = system_scores([1, 2, 3, 4, 5, 5], rng=np.random.default_rng(7), **args)
    assert first == again


def test_distribution():
    assert score_distribution([1, 1, 2, np.nan], systems=["a", "a", "a", "a"]) == {"a": {1.0: 2, 2.0: 1}}


def test_zscore_matches_scipy_per_rater():
    rng = np.random.default_rng(1)
    values = rng.normal(50, 20, 90)
    raters = np.repeat(["r1", "r2", "r3"], 30)
    z = normalise_scores(values, raters=raters, method="zscore")
    for r in ("r1", "r2", "r3"):
        assert z[raters == r] == pytest.approx(stats.zscore(values[raters == r], ddof=1))


def test_log_normalisation_divides_by_geometric_mean():
    values = np.array([10.0, 20.0, 40.0, 1.0, 2.0, 4.0])
    raters = list("aaabbb")
    out = normalise_scores(values, raters=raters, method="log")
    # both raters gave the same ratios, so the same normalised scores
    assert out[:3] == pytest.approx(out[3:])
    assert out[:3] == pytest.approx(np.log(values[:3] / stats.gmean(values[:3])))


def test_constant_rater_gets_zero_and_nan_stays_nan():
    out = normalise_scores([5, 5, np.nan, 1, 3], raters=list("aaabb"), method="zscore")
    assert out[:2].tolist() == [0.0, 0.0] and np.isnan(out[2])


def test_mean_ranks_match_scipy_rankdata_per_screen():
    rng = np.random.default_rng(4)
    values = rng.integers(0, 5, 60).astype(float)
    screens = np.repeat(np.arange(20), 3)
    systems = np.tile(["a", "b", "c"], 20)
    ranks = mean_ranks(values, systems=systems, screens=screens, n_resamples=0)
    expected = np.concatenate([stats.rankdata(-values[screens == s]) for s in range(20)])
    for r in ranks:
        assert r.mean_rank == pytest.approx(expected[systems == r.system].mean())
        assert r.n_screens == 20


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: system_scores([np.nan], systems=["a"], units=[1], n_resamples=0), "every value is missing"),
        (lambda: system_scores([1, 2], systems=["a"], units=[1, 2], n_resamples=0), "one element per rating"),
        (lambda: system_scores([1], systems=["a"], units=[1], n_resamples=10), "numpy.random.Generator"),
        (
            lambda: system_scores([1], systems=["a"], units=[1], n_resamples=0, confidence=1.5),
            "between 0 and 1",
        ),
        (lambda: system_scores([np.inf], systems=["a"], units=[1], n_resamples=0), "infinite"),
        (lambda: normalise_scores([1], raters=["a"], method="rank"), "'none', 'zscore', 'log', 'modulus'"),
        (lambda: normalise_scores([0, 1], raters=["a", "a"], method="log"), "must be positive"),
        (lambda: normalise_scores([1], raters=["a"], method="modulus"), "needs the modulus"),
    ],
)
def test_input_validation(call, message):
    with pytest.raises(ValueError, match=message) as info:
        call()
    if "missing" in message:
        assert info.type is InsufficientDataError


# issue 24, point 6: BCa intervals of the system means
def test_bca_mean_interval_equals_scipy_bootstrap_bca():
    x = np.random.default_rng(1).exponential(size=25)
    scores = system_scores(x, systems=["a"] * 25, units=range(25), n_resamples=999, rng=np.random.default_rng(4))
    theirs = stats.bootstrap((x,), np.mean, method="BCa", n_resamples=999, rng=np.random.default_rng(4))
    assert scores[0].mean_ci == pytest.approx(tuple(theirs.confidence_interval), abs=1e-12)
    plain = system_scores(
        x, systems=["a"] * 25, units=range(25), n_resamples=999, rng=np.random.default_rng(4), method="percentile"
    )
    theirs = stats.bootstrap((x,), np.mean, method="percentile", n_resamples=999, rng=np.random.default_rng(4))
    assert plain[0].mean_ci == pytest.approx(tuple(theirs.confidence_interval), abs=1e-12)


def test_bca_jackknife_leaves_out_whole_units():
    # two ratings per unit: the cluster jackknife drops both, as scipy's does on per-unit (sum, count)
    rng = np.random.default_rng(2)
    values = rng.exponential(size=40)
    units = np.repeat(np.arange(20), 2)
    scores = system_scores(values, systems=["a"] * 40, units=units, n_resamples=499, rng=np.random.default_rng(3))
    per_unit = values.reshape(20, 2).sum(axis=1)
    theirs = stats.bootstrap(
        (per_unit, np.full(20, 2.0)),
        lambda s, c: s.sum() / c.sum(),
        paired=True,
        vectorized=False,
        method="BCa",
        n_resamples=499,
        rng=np.random.default_rng(3),
    )
    assert scores[0].mean_ci == pytest.approx(tuple(theirs.confidence_interval), abs=1e-12)


def test_interval_method_is_checked():
    with pytest.raises(ValueError, match="method must be one of 'bca', 'percentile'; got 'normal'"):
        system_scores([1.0, 2.0], systems=["a", "a"], units=[0, 1], n_resamples=0, method="normal")
