"""Bradley–Terry on aggregated tables with the multinomial bootstrap against the per-comparison fit."""

import numpy as np
import pytest

from evaluation.stats import InsufficientDataError, PairTables, bradley_terry, bradley_terry_tables, pair_tables


def random_comparisons(seed, n=2000, k=5, tie_rate=0.2):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=k)
    first, second = rng.integers(0, k, n), rng.integers(0, k, n)
    keep = first != second
    first, second = first[keep], second[keep]
    outcome = np.where(rng.random(len(first)) < 1 / (1 + np.exp(theta[second] - theta[first])), 2.0, 0.0)
    outcome[rng.random(len(first)) < tie_rate] = 1.0
    return first, second, outcome


def test_tables_count_by_hand():
    t = pair_tables(["a", "b", "a", "c", "c"], ["b", "a", "c", "a", "b"], [2, 2, 1, 0, 1])
    assert t.systems == ("a", "b", "c")
    assert t.wins.tolist() == [[0, 1, 1], [1, 0, 0], [0, 0, 0]]
    assert t.ties.tolist() == [[0, 0, 1], [0, 0, 1], [1, 1, 0]]
    assert t.n_comparisons == 5


@pytest.mark.parametrize("ties", ["half", "davidson"])
@pytest.mark.parametrize("seed", [0, 1])
def test_fit_and_bootstrap_equal_the_per_comparison_model(ties, seed):
    first, second, outcome = random_comparisons(seed)
    direct = bradley_terry(first, second, outcome, ties=ties, n_resamples=400, rng=np.random.default_rng(1))
    tables = bradley_terry_tables(
        pair_tables(first, second, outcome), ties=ties, n_resamples=400, rng=np.random.default_rng(2)
    )
    assert np.allclose(tables.strengths, direct.strengths, atol=1e-9)
    assert tables.log_likelihood == pytest.approx(direct.log_likelihood, rel=1e-12)
    assert tables.tie_parameter == (pytest.approx(direct.tie_parameter) if ties == "davidson" else None)
    assert tables.n_comparisons == direct.n_comparisons
    # the same bootstrap distribution drawn two ways: the limits differ by Monte Carlo error only
    assert np.allclose(tables.ci_low, direct.ci_low, atol=0.06)
    assert np.allclose(tables.ci_high, direct.ci_high, atol=0.06)


def test_bad_tables():
    with pytest.raises(ValueError, match="symmetric"):
        bradley_terry_tables(
            PairTables(("a", "b"), np.array([[0, 1], [1, 0]]), np.array([[0, 1], [0, 0]])), n_resamples=0
        )
    with pytest.raises(ValueError, match="non-negative"):
        bradley_terry_tables(PairTables(("a", "b"), np.array([[0, -1], [1, 0]]), np.zeros((2, 2))), n_resamples=0)
    with pytest.raises(InsufficientDataError, match="never won"):
        bradley_terry_tables(PairTables(("a", "b"), np.array([[0, 3], [0, 0]]), np.zeros((2, 2))), n_resamples=0)
