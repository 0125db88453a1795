"""Calibration: ridge against independent solvers, held-out reporting, and no leakage."""

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import linalg, stats

from evaluation.stats import Calibrator, InsufficientDataError, calibrate, fit_calibrator

# Anscombe (1973), data set I: y = 3.00 + 0.500 x.
ANSCOMBE_X = [10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5]
ANSCOMBE_Y = [8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68]


def data(seed, n=300):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)) * [1.0, 5.0, 0.1] + [0, 10, 1]
    y = x @ [0.5, 0.1, 4.0] + rng.normal(scale=0.7, size=n)
    return x, y


def test_anscombe_least_squares_line():
    b, (slope,) = fit_calibrator(
        np.array(ANSCOMBE_X, float)[:, None], ANSCOMBE_Y, names=["x"], alpha=0
    ).raw_coefficients()
    assert (round(b, 2), round(slope, 3)) == (3.0, 0.5)


def test_ols_equals_statsmodels():
    x, y = data(0)
    intercept, slopes = fit_calibrator(x, y, names="abc", alpha=0).raw_coefficients()
    fit = sm.OLS(y, sm.add_constant(x)).fit()
    assert [intercept, *slopes] == pytest.approx(fit.params, abs=1e-9)


def test_ridge_equals_augmented_least_squares():
    # ridge on standardised features = least squares on [Z; sqrt(alpha) I] against [y - mean; 0]
    x, y = data(1)
    model = fit_calibrator(x, y, names="abc", alpha=25.0)
    z = (x - x.mean(0)) / x.std(0)
    augmented = np.vstack([z, np.sqrt(25.0) * np.eye(3)])
    target = np.concatenate([y - y.mean(), np.zeros(3)])
    assert np.array(model.weights) == pytest.approx(linalg.lstsq(augmented, target)[0], abs=1e-10)
    assert Calibrator.from_dict(model.as_dict()) == model
    assert model.predict(x) == pytest.approx(y.mean() + z @ np.array(model.weights))


def test_held_out_statistics_do_not_leak_into_the_fit():
    # Given a fixed split, when every held-out value (metrics and humans) is replaced by garbage,
    # then the fitted calibrator and the choice of best single metric are exactly the same.
    x, y = data(2)
    groups = np.arange(300) // 3
    calibration = groups < 70
    clean = calibrate(x, y, names="abc", groups=groups, calibration=calibration)
    x2, y2 = x.copy(), y.copy()
    rng = np.random.default_rng(9)
    x2[~calibration] = rng.normal(1e3, 1e3, size=x2[~calibration].shape)
    y2[~calibration] = -y2[~calibration] * 100
    dirty = calibrate(x2, y2, names="abc", groups=groups, calibration=calibration)
    assert dirty.calibrator == clean.calibrator
    assert dirty.best_single == clean.best_single
    assert dirty.held_out != clean.held_out


def test_report_numbers_equal_an_independent_recomputation():
    x, y = data(3)
    groups = np.arange(300) // 3
    report = calibrate(x, y, names="abc", groups=groups, held_out_share=0.25, rng=np.random.default_rng(4), alpha=1.0)
    held = ~np.isin(groups, np.random.default_rng(4).permutation(100)[:25]) == False  # noqa: E712
    predicted = report.calibrator.predict(x[held])
    assert report.n_held_out == held.sum() == 75
    assert report.held_out["kendall"] == pytest.approx(stats.kendalltau(predicted, y[held]).statistic)
    best = report.best_single
    r_cal = [stats.pearsonr(x[~held, k], y[~held]).statistic for k in range(3)]
    assert best == "abc"[int(np.argmax(np.abs(r_cal)))]
    assert report.single[best]["pearson"] == pytest.approx(
        np.sign(r_cal["abc".index(best)]) * stats.pearsonr(x[held, "abc".index(best)], y[held]).statistic
    )
    assert report.gain["pearson"] == pytest.approx(report.held_out["pearson"] - report.single[best]["pearson"])
    assert report.gain["pearson"] > 0


def test_k_fold_predicts_every_complete_row_once():
    x, y = data(5)
    x[0, 1] = np.nan
    report = calibrate(x, y, names="abc", groups=np.arange(300) // 3, k_folds=5, rng=np.random.default_rng(0))
    assert report.k_folds == 5 and len(report.fold_held_out) == 5
    assert report.n_held_out == 299 and report.n_dropped == 1
    assert report.held_out["pearson"] > report.single[report.best_single]["pearson"] > 0.3


def test_split_that_cuts_an_item_is_refused():
    x, y = data(6, n=12)
    with pytest.raises(ValueError, match="splits an item"):
        calibrate(x, y, names="abc", groups=np.arange(12) // 3, calibration=np.arange(12) < 4)


def test_too_few_rows():
    with pytest.raises(InsufficientDataError, match="too few"):
        fit_calibrator([[1.0, 2.0]], [1.0], names="ab", alpha=0)


def test_gain_bootstrap_interval_is_scipys_paired_percentile_bootstrap():
    # one output per item: the item bootstrap is scipy's paired bootstrap of the rows
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=300), rng.normal(size=300)
    human = a + 0.6 * b + rng.normal(scale=0.8, size=300)
    report = calibrate(
        np.column_stack([a, b]),
        human,
        names=["a", "b"],
        groups=np.arange(300),
        rng=np.random.default_rng(1),
        methods=["pearson"],
        n_resamples=4000,
    )
    assert report.n_held_out == 90 and report.n_resamples == 4000
    # recompute the held-out predictions independently: the split the report drew, refitted
    split = np.random.default_rng(1).permutation(300)[:90]
    held = np.isin(np.arange(300), split)
    model = fit_calibrator(np.column_stack([a, b])[~held], human[~held], names=["a", "b"])
    calibrated, single = model.predict(np.column_stack([a, b])[held]), a[held]
    assert report.best_single == "a"

    def pearson(x, y):  # along the last axis, over all of scipy's resamples at once
        x, y = x - x.mean(axis=-1, keepdims=True), y - y.mean(axis=-1, keepdims=True)
        return (x * y).sum(axis=-1) / np.sqrt((x * x).sum(axis=-1) * (y * y).sum(axis=-1))

    def gain(c, s, h, axis=-1):
        return pearson(c, h) - pearson(s, h)

    # vectorised, the same resamples and interval (to 1e-15) as with stats.pearsonr one resample at a time,
    # in 0.2 s instead of 22 s
    assert gain(calibrated, single, human[held]) == pytest.approx(
        stats.pearsonr(calibrated, human[held]).statistic - stats.pearsonr(single, human[held]).statistic
    )
    scipy_ci = stats.bootstrap(
        (calibrated, single, human[held]),
        gain,
        paired=True,
        vectorized=True,
        n_resamples=4000,
        method="percentile",
        rng=np.random.default_rng(9),
    ).confidence_interval
    assert report.gain_ci["pearson"] == pytest.approx([scipy_ci.low, scipy_ci.high], abs=0.02)
    assert report.gain_ci["pearson"][0] > 0 and report.gain_p_value["pearson"] < 0.01


def test_gain_p_value_is_not_small_without_a_gain():
    # the second metric is noise: over many draws, p < 0.05 should be about as rare as 5%
    small = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        a, noise = rng.normal(size=120), rng.normal(size=120)
        human = a + rng.normal(size=120)
        report = calibrate(
            np.column_stack([a, noise]),
            human,
            names=["a", "noise"],
            groups=np.repeat(np.arange(60), 2),
            rng=rng,
            methods=["pearson"],
            alpha=0.0,
            n_resamples=300,
        )
        small += report.gain_p_value["pearson"] < 0.05
    assert small <= 6


def test_a_calibrator_of_one_metric_gains_nothing():
    rng = np.random.default_rng(2)
    a = rng.normal(size=100)
    report = calibrate(
        a[:, None], a + rng.normal(size=100), names=["a"], groups=np.arange(100), rng=rng, n_resamples=200
    )
    assert report.gain["pearson"] == pytest.approx(0.0, abs=1e-12)
    assert report.gain_p_value["pearson"] == 1.0
