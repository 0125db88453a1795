"""Prediction-powered means: the ppi-python package on the same data, coverage over simulated
studies with a biased judge, and the degenerate cases."""

import numpy as np
import ppi_py
import pytest

from evaluation.stats import InsufficientDataError, prediction_powered_mean


def _biased_study(rng, n, big_n, bias=0.6, noise=0.5):
    """Likert-like human means around 3.2 and a judge that rates 0.6 too high, noisily."""
    truth = np.clip(np.round(rng.normal(3.2, 1.0, n + big_n) * 3) / 3, 1, 5)
    judge = truth + bias + rng.normal(0, noise, n + big_n)
    return truth[:n], judge[:n], judge[n:]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("power_tuning", [True, False])
def test_equals_ppi_python(seed, power_tuning):
    rng = np.random.default_rng(seed)
    y, f, f_only = _biased_study(rng, 80 + 20 * seed, 1500)
    r = prediction_powered_mean(y, f, f_only, confidence=0.9, power_tuning=power_tuning)
    lam = None if power_tuning else 1
    low, high = ppi_py.ppi_mean_ci(y, f, f_only, alpha=0.1, lam=lam)
    assert r.prediction_powered.value == pytest.approx(float(ppi_py.ppi_mean_pointestimate(y, f, f_only, lam=lam)[0]))
    assert (r.prediction_powered.ci_low, r.prediction_powered.ci_high) == pytest.approx((low[0], high[0]))


def test_win_rate_outcomes_equal_ppi_python():
    # a pairwise study: 1 = first system wins, 0.5 tie, 0 loses; the judge favours the first system
    rng = np.random.default_rng(11)
    y = rng.choice([0.0, 0.5, 1.0], 150, p=[0.4, 0.2, 0.4])
    f = np.where(rng.random(150) < 0.7, y, 1.0)
    f_only = rng.choice([0.0, 0.5, 1.0], 3000, p=[0.25, 0.15, 0.6])
    r = prediction_powered_mean(y, f, f_only)
    low, high = ppi_py.ppi_mean_ci(y, f, f_only, alpha=0.05)
    assert (r.prediction_powered.ci_low, r.prediction_powered.ci_high) == pytest.approx((low[0], high[0]))


def test_coverage_over_1000_simulated_studies_with_a_biased_judge():
    # given 1,000 studies of 100 human-rated and 2,000 judge-only outputs whose true mean is known
    rng = np.random.default_rng(20231110)
    population = np.clip(np.round(rng.normal(3.2, 1.0, 2_000_000) * 3) / 3, 1, 5)
    truth = population.mean()
    covered = {"prediction_powered": 0, "human_only": 0, "judge_only": 0}
    widths = {"prediction_powered": 0.0, "human_only": 0.0}
    saved = 0.0
    for _ in range(1000):
        y = rng.choice(population, 2100)
        judge = y + 0.6 + rng.normal(0, 0.5, 2100)
        # when each study is estimated three ways
        r = prediction_powered_mean(y[:100], judge[:100], judge[100:])
        for name in covered:
            e = getattr(r, name)
            covered[name] += e.ci_low <= truth <= e.ci_high
        for name in widths:
            e = getattr(r, name)
            widths[name] += e.ci_high - e.ci_low
        saved += r.n_saved
    # then the prediction-powered and human intervals cover at their level, the judge's never
    assert covered["prediction_powered"] >= 930
    assert covered["human_only"] >= 930
    assert covered["judge_only"] == 0
    # and the judge buys precision: narrower intervals, as if more humans had rated
    assert widths["prediction_powered"] < 0.9 * widths["human_only"]
    assert saved / 1000 > 20


def test_a_useless_judge_gets_no_weight():
    rng = np.random.default_rng(3)
    y = rng.normal(size=200)
    r = prediction_powered_mean(y, rng.normal(size=200), rng.normal(size=5000))
    assert r.tuning < 0.2
    assert r.prediction_powered.std_error == pytest.approx(r.human_only.std_error, rel=0.15)
    constant = prediction_powered_mean(y, np.zeros(200), np.zeros(50))
    assert constant.tuning == 0.0 and constant.prediction_powered.value == pytest.approx(y.mean())


def test_input_validation():
    with pytest.raises(InsufficientDataError, match="two human-rated units; got 1"):
        prediction_powered_mean([1.0], [1.0], [1.0, 2.0])
    with pytest.raises(InsufficientDataError, match="two judge-only units; got 0"):
        prediction_powered_mean([1.0, 2.0], [1.0, 2.0], [])
    with pytest.raises(ValueError, match="same units; got 2 and 3"):
        prediction_powered_mean([1.0, 2.0], [1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="NaN is not a rating"):
        prediction_powered_mean([1.0, np.nan], [1.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="confidence must be"):
        prediction_powered_mean([1.0, 2.0], [1.0, 2.0], [1.0, 2.0], confidence=95)
