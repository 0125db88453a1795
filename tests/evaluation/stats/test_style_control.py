"""Bradley–Terry with style covariates: against statsmodels and a direct maximisation, and recovering
strengths that style confounds."""

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import optimize

from evaluation.stats import (
    STYLE_FEATURES,
    InsufficientDataError,
    bradley_terry,
    bradley_terry_style,
    style_features,
)


def confounded_study(seed, n=3000, k=5, beta=0.8, tie_rate=0.0):
    """System 0 writes long answers; the outcome depends on strength and on relative length."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(0.6, -0.6, k)
    first = rng.integers(0, k, n)
    second = (first + rng.integers(1, k, n)) % k
    mean_length = np.full(k, 100.0)
    mean_length[k - 1] = 300.0  # the weakest system is the wordiest
    length_first = rng.poisson(mean_length[first]) + 1.0
    length_second = rng.poisson(mean_length[second]) + 1.0
    bold_first, bold_second = rng.poisson(1.0, n).astype(float), rng.poisson(1.0, n).astype(float)
    d = (length_first - length_second) / (length_first + length_second)
    a = theta[first] - theta[second] + beta * d / 0.25
    outcome = np.where(rng.random(n) < 1 / (1 + np.exp(-a)), 2.0, 0.0)
    outcome[rng.random(n) < tie_rate] = 1.0
    features_first = np.column_stack([length_first, bold_first])
    features_second = np.column_stack([length_second, bold_second])
    return theta, first, second, outcome, features_first, features_second


def standardised_differences(ff, fs):
    """The arena's covariates written out: (a - b) / (a + b), 0 when both are 0, then z-scores."""
    d = np.zeros_like(ff)
    both = ff + fs > 0
    d[both] = (ff - fs)[both] / (ff + fs)[both]
    return (d - d.mean(axis=0)) / d.std(axis=0)


def test_style_features_by_hand():
    text = "## Title\n\n1. **first** step\n2) second\n* third __here__\nplain # not a header"
    assert style_features([text, ""]).tolist() == [[15.0, 1.0, 3.0, 2.0], [0.0, 0.0, 0.0, 0.0]]
    assert STYLE_FEATURES == ("length", "headers", "list_items", "bold")


@pytest.mark.parametrize("seed", [0, 1])
def test_half_win_fit_equals_statsmodels_logistic_regression(seed):
    _, first, second, outcome, ff, fs = confounded_study(seed, n=800, tie_rate=0.2)
    ours = bradley_terry_style(first, second, outcome, ff, fs, feature_names=("length", "bold"), n_resamples=0)
    x = np.zeros((len(first), 5))
    x[np.arange(len(first)), first] = 1.0
    x[np.arange(len(first)), second] = -1.0
    z = standardised_differences(ff, fs)
    fit = sm.GLM(outcome / 2, np.column_stack([x[:, 1:], z]), family=sm.families.Binomial()).fit(tol=1e-12)
    theta = np.array(ours.strengths)
    assert np.allclose(theta[1:] - theta[0], fit.params[:4], atol=1e-6)
    assert np.allclose(ours.coefficients, fit.params[4:], atol=1e-6)
    assert ours.gradient_norm < 1e-8


def test_davidson_with_style_maximises_its_likelihood():
    _, first, second, outcome, ff, fs = confounded_study(2, n=800, tie_rate=0.25)
    ours = bradley_terry_style(
        first, second, outcome, ff, fs, feature_names=("length", "bold"), ties="davidson", n_resamples=0
    )
    z = standardised_differences(ff, fs)

    def negloglik(params):
        theta = np.append(params[:4], -params[:4].sum())
        a = theta[first] - theta[second] + z @ params[4:6]
        nu = np.exp(params[6])
        log_p = np.where(outcome == 2, a / 2, np.where(outcome == 0, -a / 2, np.log(nu)))
        return -(log_p - np.log(np.exp(a / 2) + np.exp(-a / 2) + nu)).sum()

    direct = optimize.minimize(negloglik, np.zeros(7), method="BFGS", options={"gtol": 1e-8}).x
    assert np.allclose(ours.strengths, np.append(direct[:4], -direct[:4].sum()), atol=1e-4)
    assert np.allclose(ours.coefficients, direct[4:6], atol=1e-4)
    assert ours.tie_parameter == pytest.approx(np.exp(direct[6]), rel=1e-4)
    assert ours.log_likelihood == pytest.approx(-negloglik(direct), abs=1e-6)


def test_style_control_recovers_strengths_that_length_confounds():
    theta, first, second, outcome, ff, fs = confounded_study(3, n=6000)
    plain = bradley_terry(first, second, outcome, n_resamples=0)
    controlled = bradley_terry_style(
        first, second, outcome, ff, fs, feature_names=("length", "bold"), n_resamples=200, rng=np.random.default_rng(0)
    )
    # uncontrolled, the wordy weakest system climbs; controlled, the true order returns
    assert plain.ranking()[-1] != 4
    assert controlled.ranking() == [0, 1, 2, 3, 4]
    assert np.abs(np.array(controlled.strengths) - theta).max() < 0.15
    length, bold = controlled.coefficients
    assert length > 0.5
    assert controlled.coefficient_ci_low[1] < 0 < controlled.coefficient_ci_high[1]
    assert all(
        lo <= v <= hi for v, lo, hi in zip(controlled.strengths, controlled.ci_low, controlled.ci_high, strict=True)
    )
    assert controlled.n_resamples_without_mle == 0


def test_constant_feature_and_bad_shapes():
    first, second, outcome = [0, 1, 2, 0], [1, 2, 0, 2], [2, 2, 0, 0]
    same = np.ones((4, 1))
    with pytest.raises(InsufficientDataError, match="'bold' does not vary"):
        bradley_terry_style(first, second, outcome, same, same, feature_names=("bold",), n_resamples=0)
    with pytest.raises(ValueError, match="shape"):
        bradley_terry_style(
            first, second, outcome, np.ones((3, 1)), np.ones((4, 1)), feature_names=("x",), n_resamples=0
        )
    with pytest.raises(ValueError, match="non-negative"):
        bradley_terry_style(
            first, second, outcome, -np.ones((4, 1)), np.ones((4, 1)), feature_names=("x",), n_resamples=0
        )
    with pytest.raises(ValueError, match="name the 1 feature"):
        bradley_terry_style(first, second, outcome, np.ones((4, 1)), np.ones((4, 1)), n_resamples=0)


def test_resamples_without_a_unique_fit_are_counted_not_raised():
    # four comparisons per pair: many resamples leave a system out, whose strength then has no unique value
    rng = np.random.default_rng(2)
    first, second = ["a", "a", "b", "b", "c", "c"] * 2, ["b", "c", "c", "a", "a", "b"] * 2
    outcome = [2, 0, 2, 0, 2, 2, 0, 2, 2, 0, 0, 2]
    length = rng.integers(5, 50, size=(12, 2)).astype(float)

    result = bradley_terry_style(
        first,
        second,
        outcome,
        length[:, :1],
        length[:, 1:],
        feature_names=["length"],
        n_resamples=200,
        rng=rng,
        units=np.arange(12) % 4,
    )

    assert 0 < result.n_resamples_without_mle < 200
    assert all(np.isfinite(result.ci_low))
