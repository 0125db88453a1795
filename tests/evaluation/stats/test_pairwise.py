"""Pairwise tables, sign tests, win rates and Bradley–Terry (half-win ties and Davidson)."""

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import optimize, stats

from evaluation.stats import (
    InsufficientDataError,
    bradley_terry,
    majority_outcomes,
    pairwise_counts,
    win_rates,
)
from evaluation.stats.pairwise import _davidson_negloglik

# Agresti, Categorical Data Analysis (2nd ed., 2002), Table 10.10/10.11: 1987 AL East, 13 games a pair;
# published strengths relative to Baltimore.
TEAMS = ["Milwaukee", "Detroit", "Toronto", "New York", "Boston", "Cleveland", "Baltimore"]
WON = [
    [0, 7, 9, 7, 7, 9, 11],
    [6, 0, 7, 5, 11, 9, 9],
    [4, 6, 0, 7, 7, 8, 12],
    [6, 8, 6, 0, 6, 7, 10],
    [6, 2, 6, 7, 0, 7, 12],
    [4, 4, 5, 6, 6, 0, 6],
    [2, 4, 1, 3, 1, 7, 0],
]
AGRESTI = [1.58, 1.44, 1.29, 1.25, 1.11, 0.68, 0.00]


def random_comparisons(seed, n=400, k=4, tie_rate=0.2):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=k)
    first, second = rng.integers(0, k, n), rng.integers(0, k, n)
    keep = first != second
    first, second = first[keep], second[keep]
    p = 1 / (1 + np.exp(theta[second] - theta[first]))
    outcome = np.where(rng.random(len(first)) < p, 2.0, 0.0)
    outcome[rng.random(len(first)) < tie_rate] = 1.0
    return [f"s{i}" for i in first], [f"s{j}" for j in second], outcome


def test_agresti_baseball_strengths():
    first, second = zip(
        *[(TEAMS[i], TEAMS[j]) for i in range(7) for j in range(7) for _ in range(WON[i][j])], strict=True
    )
    bt = bradley_terry(first, second, [2] * len(first), n_resamples=0)
    base = bt.strengths[bt.systems.index("Baltimore")]
    assert [round(bt.strengths[bt.systems.index(t)] - base, 2) for t in TEAMS] == AGRESTI
    assert bt.ranking() == TEAMS


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_half_win_fit_equals_statsmodels_binomial_glm(seed):
    # Ties as half-wins = binomial GLM on the proportion won per ordered pair, no intercept,
    # design x_first - x_second (the Chatbot Arena logistic regression).
    first, second, outcome = random_comparisons(seed)
    bt = bradley_terry(first, second, outcome, n_resamples=0)
    names = list(bt.systems)
    rows, y, n = [], [], []
    for a, b, o in zip(first, second, outcome, strict=True):
        x = np.zeros(len(names))
        x[names.index(a)], x[names.index(b)] = 1, -1
        rows.append(x[1:])  # first system is the baseline (theta = 0)
        y.append(o / 2)
        n.append(1.0)
    fit = sm.GLM(np.array(y), np.array(rows), family=sm.families.Binomial(), var_weights=np.array(n)).fit()
    theta = np.concatenate([[0.0], fit.params])
    assert np.array(bt.strengths) == pytest.approx(theta - theta.mean(), abs=1e-6)


def test_davidson_gradient_and_optimum():
    first, second, outcome = random_comparisons(5, tie_rate=0.3)
    bt = bradley_terry(first, second, outcome, ties="davidson", n_resamples=0)
    from evaluation.stats.pairwise import _check_comparisons, _pair_tables

    _, i, j, y = _check_comparisons(first, second, outcome)
    wins, ties = _pair_tables(len(bt.systems), i, j, y, np.ones((1, len(y))))
    params = np.append(np.array(bt.strengths), np.log(bt.tie_parameter))
    f = lambda p: _davidson_negloglik(p, wins[0], ties[0])[0]  # noqa: E731
    g = lambda p: _davidson_negloglik(p, wins[0], ties[0])[1]  # noqa: E731
    assert optimize.check_grad(f, g, params + 0.1) < 1e-4
    # an independent derivative-free optimiser finds the same maximum
    free = optimize.minimize(
        f,
        np.zeros_like(params),
        method="Nelder-Mead",
        options={"xatol": 1e-9, "fatol": 1e-12, "maxiter": 40_000, "maxfev": 40_000},
    )
    theta = free.x[:-1] - free.x[:-1].mean()
    assert np.array(bt.strengths) == pytest.approx(theta, abs=1e-3)
    assert bt.tie_parameter == pytest.approx(np.exp(free.x[-1]), rel=1e-3)
    assert bt.log_likelihood == pytest.approx(-free.fun, abs=1e-6)


def test_davidson_and_half_agree_on_order():
    first, second, outcome = random_comparisons(7, n=1500, k=5, tie_rate=0.25)
    assert (
        bradley_terry(first, second, outcome, ties="davidson", n_resamples=0).ranking()
        == bradley_terry(first, second, outcome, n_resamples=0).ranking()
    )


def test_bootstrap_intervals_cover_the_estimate_and_are_reproducible():
    first, second, outcome = random_comparisons(2)
    units = np.arange(len(outcome)) // 3
    a = bradley_terry(first, second, outcome, units=units, n_resamples=200, rng=np.random.default_rng(0))
    b = bradley_terry(first, second, outcome, units=units, n_resamples=200, rng=np.random.default_rng(0))
    assert a == b
    assert all(lo < s < hi for s, lo, hi in zip(a.strengths, a.ci_low, a.ci_high, strict=True))


def test_no_mle_when_a_system_never_wins():
    with pytest.raises(InsufficientDataError, match="never won"):
        bradley_terry(["a", "a", "b"], ["b", "c", "c"], [2, 2, 2], n_resamples=0)


def test_counts_sign_test_and_win_rates_against_scipy():
    first, second, outcome = random_comparisons(9, k=3)
    for pair in pairwise_counts(first, second, outcome):
        a_first = (np.array(first) == pair.system_a) & (np.array(second) == pair.system_b)
        a_second = (np.array(first) == pair.system_b) & (np.array(second) == pair.system_a)
        wins = int((outcome[a_first] == 2).sum() + (outcome[a_second] == 0).sum())
        losses = int((outcome[a_first] == 0).sum() + (outcome[a_second] == 2).sum())
        assert (pair.wins, pair.losses) == (wins, losses)
        assert pair.sign_test_p == pytest.approx(stats.binomtest(wins, wins + losses).pvalue)
    rates = {w.system: w for w in win_rates(first, second, outcome)}
    assert sum(w.wins for w in rates.values()) == sum(w.losses for w in rates.values())
    assert sum(w.n for w in rates.values()) == 2 * len(outcome)


def test_majority_outcomes():
    units, votes = majority_outcomes([0, 0, 2, 1, 1, 1, 0, 2], units=[1, 1, 1, 2, 2, 2, 3, 3])
    assert units.tolist() == [1, 2, 3]
    assert votes[:2].tolist() == [0.0, 1.0] and np.isnan(votes[2])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pairwise_counts(["a"], ["b"], [3]), "0 \\(first loses\\), 1 \\(tie\\) or 2"),
        (lambda: pairwise_counts(["a"], ["a"], [1]), "two different systems"),
        (lambda: bradley_terry(["a"], ["b"], [1], ties="rao", n_resamples=0), "'half', 'davidson'"),
        (lambda: bradley_terry(["a", "b"], ["b", "a"], [2, 2], n_resamples=5), "numpy.random.Generator"),
    ],
)
def test_input_validation(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def _davidson_reference(first, second, outcome, names):
    """Davidson's log-likelihood written per comparison (independent of the module's table form),
    with the first system as baseline (theta_0 = 0) instead of centring; returns f and gradient."""
    i = np.array([names.index(a) for a in first])
    j = np.array([names.index(b) for b in second])
    y = np.asarray(outcome)

    def f_and_grad(free):
        theta, phi = np.concatenate([[0.0], free[:-1]]), free[-1]
        a, b = np.exp(theta[i]), np.exp(theta[j])
        c = np.exp(phi + (theta[i] + theta[j]) / 2)
        d = a + b + c
        loglik = np.where(y == 2, theta[i], np.where(y == 0, theta[j], phi + (theta[i] + theta[j]) / 2)) - np.log(d)
        grad = np.zeros(len(names) + 1)
        np.add.at(grad, i, (y == 2) + (y == 1) / 2 - (a + c / 2) / d)
        np.add.at(grad, j, (y == 0) + (y == 1) / 2 - (b + c / 2) / d)
        grad[-1] = ((y == 1) - c / d).sum()
        return -loglik.sum(), -np.delete(grad, 0)

    return f_and_grad


@pytest.mark.parametrize("seed", [5, 11, 12])
def test_davidson_converges_to_the_maximum_likelihood_fit(seed):
    # issue 24, point 4: the L-BFGS-B fit stopped on its default ftol, strengths up to 3e-5 off
    first, second, outcome = random_comparisons(seed, n=3000, k=6, tie_rate=0.3)
    bt = bradley_terry(first, second, outcome, ties="davidson", n_resamples=0)
    f_and_grad = _davidson_reference(first, second, outcome, list(bt.systems))
    # reference: BFGS from zero, polished by solving gradient = 0 (Powell's hybrid method)
    start = optimize.minimize(f_and_grad, np.zeros(len(bt.systems)), jac=True, method="BFGS").x
    ref = optimize.root(lambda x: f_and_grad(x)[1], start, method="hybr", options={"xtol": 1e-14})
    theta = np.concatenate([[0.0], ref.x[:-1]])
    assert np.abs(f_and_grad(ref.x)[1]).max() < 1e-7
    assert np.array(bt.strengths) == pytest.approx(theta - theta.mean(), abs=1e-8)
    assert bt.tie_parameter == pytest.approx(np.exp(ref.x[-1]), rel=1e-8)
    ours = np.append(np.array(bt.strengths[1:]) - bt.strengths[0], np.log(bt.tie_parameter))
    assert np.abs(f_and_grad(ours)[1]).max() < 1e-8
    assert bt.gradient_norm < 1e-8
