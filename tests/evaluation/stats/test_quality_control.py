"""Quality control's tests against exact enumerations written here (not through scipy) on random data."""

import itertools
from math import comb
from statistics import NormalDist

import numpy as np
import pytest

from evaluation.stats import degraded_scores_test, position_bias_test, sign_test_greater


def binomial_pmf(k: int, n: int, p: float) -> float:
    return comb(n, k) * p**k * (1 - p) ** (n - k)


@pytest.mark.parametrize("seed", range(20))
def test_position_bias_is_the_two_sided_exact_binomial_test(seed):
    # two-sided as R's binom.test: the outcomes no more likely than the one observed (relative tolerance 1e-7)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    k = int(rng.integers(0, n + 1))
    chance = float(rng.choice([1 / 2, 1 / 3, 1 / 4, 0.37]))
    observed = binomial_pmf(k, n, chance)
    expected = sum(
        binomial_pmf(i, n, chance) for i in range(n + 1) if binomial_pmf(i, n, chance) <= observed * (1 + 1e-7)
    )
    assert position_bias_test(k, n, chance) == pytest.approx(min(1.0, expected), rel=1e-9)


@pytest.mark.parametrize(("successes", "trials"), [(0, 1), (1, 1), (7, 10), (12, 30), (30, 30)])
def test_sign_test_is_the_upper_tail_of_fair_flips(successes, trials):
    expected = sum(comb(trials, i) for i in range(successes, trials + 1)) / 2**trials
    assert sign_test_greater(successes, trials) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_degraded_scores_small_samples_are_exact(seed):
    # without ties scipy's p-value is exact: the share of the splits of the pooled scores whose U is as small
    rng = np.random.default_rng(seed)
    n_degraded, n_originals = int(rng.integers(2, 6)), int(rng.integers(2, 7))
    pooled = rng.permutation(rng.normal(size=n_degraded + n_originals))
    degraded, originals = pooled[:n_degraded], pooled[n_degraded:]

    def u(first, second):
        return sum(a > b for a in first for b in second)

    observed = u(degraded, originals)
    splits = [
        u(pooled[list(c)], np.delete(pooled, list(c))) for c in itertools.combinations(range(len(pooled)), n_degraded)
    ]
    expected = sum(s <= observed for s in splits) / len(splits)
    assert degraded_scores_test(degraded, originals) == pytest.approx(expected, rel=1e-12)


def test_degraded_scores_with_ties_use_the_corrected_normal_approximation():
    rng = np.random.default_rng(7)
    degraded = rng.integers(1, 6, size=40).astype(float)
    originals = rng.integers(2, 7, size=50).astype(float)
    pooled = np.concatenate([degraded, originals])
    n1, n2 = len(degraded), len(originals)
    ranks = np.empty(len(pooled))
    for value in np.unique(pooled):  # mid-ranks
        where = pooled == value
        below = (pooled < value).sum()
        ranks[where] = below + (where.sum() + 1) / 2
    u1 = ranks[:n1].sum() - n1 * (n1 + 1) / 2
    _, counts = np.unique(pooled, return_counts=True)
    n = n1 + n2
    sd = np.sqrt(n1 * n2 / 12 * ((n + 1) - (counts**3 - counts).sum() / (n * (n - 1))))
    expected = NormalDist().cdf((u1 - n1 * n2 / 2 + 0.5) / sd)
    assert degraded_scores_test(degraded, originals) == pytest.approx(expected, rel=1e-9)
