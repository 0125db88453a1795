"""Leaderboard integrity: removals to swap neighbours (against an exhaustive search), provisional rankings."""

from itertools import product

import numpy as np
import pytest

from evaluation.stats import InsufficientDataError, bradley_terry, leaderboard_integrity


def comparisons(table, ties=None):
    """Comparisons from a wins table (row beat column) and an optional upper-triangular ties table."""
    first, second, outcome = [], [], []
    for (a, b), n in np.ndenumerate(np.asarray(table)):
        first += [a] * n
        second += [b] * n
        outcome += [2] * n
    for (a, b), n in np.ndenumerate(np.asarray(ties if ties is not None else np.zeros_like(table))):
        first += [a] * n
        second += [b] * n
        outcome += [1] * n
    return np.array(first), np.array(second), np.array(outcome)


def smallest_flip(table, upper, lower):
    """Exhaustive search: the fewest decided judgments whose removal lets ``lower`` reach ``upper``."""
    table = np.asarray(table)
    cells = [c for c, n in np.ndenumerate(table) if n]
    best = None
    for removal in product(*[range(table[c] + 1) for c in cells]):
        rest = table.copy()
        for c, r in zip(cells, removal, strict=True):
            rest[c] -= r
        if best is not None and sum(removal) >= best:
            continue
        try:
            fit = bradley_terry(*comparisons(rest), n_resamples=0)
        except InsufficientDataError:
            continue
        if fit.strengths[lower] >= fit.strengths[upper] - 1e-9:
            best = sum(removal)
    return best


def test_two_systems_by_hand():
    r = leaderboard_integrity(["a"] * 7, ["b"] * 7, [2] * 5 + [0] * 2)
    (margin,) = r.margins
    assert (margin.upper, margin.lower, margin.removals_to_flip) == ("a", "b", 3)
    assert margin.removed == (("a", "b", False, 3),)
    assert margin.gap == pytest.approx(np.log(5 / 2))


def test_ties_count_as_half_wins():
    # 4 wins, 2 losses, 2 ties: a is 5 to 3 in half-wins; removing 2 wins makes it 3 to 3
    r = leaderboard_integrity(["a"] * 8, ["b"] * 8, [2] * 4 + [0] * 2 + [1] * 2)
    assert r.margins[0].removals_to_flip == 2


def test_three_systems_by_hand():
    # 0 and 1 both beat 2 eight times to two; 0 leads 1 three to two: one of 0's wins over 1 levels them
    table = [[0, 3, 8], [2, 0, 8], [2, 2, 0]]
    r = leaderboard_integrity(*comparisons(table))
    assert r.ranking[:2] == (0, 1)
    assert r.margins[0].removals_to_flip == 1
    assert r.margins[0].removed == ((0, 1, False, 1),)


@pytest.mark.parametrize("seed", range(4))
def test_greedy_count_equals_an_exhaustive_search_on_small_leagues(seed):
    rng = np.random.default_rng(seed)
    table = rng.integers(1, 4, size=(3, 3))
    np.fill_diagonal(table, 0)
    r = leaderboard_integrity(*comparisons(table))
    for margin in r.margins:
        exact = smallest_flip(table, margin.upper, margin.lower)
        assert margin.removals_to_flip == exact


def test_provisional_while_a_system_has_few_judgments():
    first, second, outcome = comparisons([[0, 6, 6], [4, 0, 1], [4, 1, 0]])
    r = leaderboard_integrity(first, second, outcome, min_judgments=12)
    assert r.ranking[0] == 0 and r.judgments == (20, 12, 12)
    assert not r.provisional
    r = leaderboard_integrity(first, second, outcome, min_judgments=13)
    assert r.provisional
    assert set(r.under_minimum) == {1, 2}


def test_gives_up_past_the_cap_and_rejects_bad_arguments():
    r = leaderboard_integrity(["a"] * 30, ["b"] * 30, [2] * 25 + [0] * 5, max_removals=5)
    assert r.margins[0].removals_to_flip is None
    with pytest.raises(ValueError, match="min_judgments"):
        leaderboard_integrity(["a"], ["b"], [2], min_judgments=-1)
    with pytest.raises(InsufficientDataError, match="no finite"):
        leaderboard_integrity(["a", "a"], ["b", "b"], [2, 2])
