"""Best–worst scaling: design balance, counting and MaxDiff scores, split-half reliability, implied pairs."""

from itertools import combinations, permutations

import numpy as np
import pytest
from scipy import optimize, stats

from evaluation.stats import (
    InsufficientDataError,
    bws_scores,
    bws_tuples,
    implied_pair_agreement,
    maxdiff,
    split_half_reliability,
)


def co_occurrence(design, n_items):
    together = np.zeros((n_items, n_items), dtype=int)
    for row in design:
        together[np.ix_(row, row)] += 1
    np.fill_diagonal(together, 0)
    return together[np.triu_indices(n_items, 1)]


def simulate(theta, design, raters, rng):
    """MaxDiff answers: (best, worst) drawn with probability proportional to exp(theta_b - theta_w)."""
    k = design.shape[1]
    pairs = np.array(list(permutations(range(k), 2)))
    tuples = np.repeat(design, raters, axis=0)
    logits = theta[tuples[:, pairs[:, 0]]] - theta[tuples[:, pairs[:, 1]]]
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    pick = (rng.random(len(tuples))[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    rows = np.arange(len(tuples))
    best, worst = tuples[rows, pairs[pick, 0]], tuples[rows, pairs[pick, 1]]
    return tuples, best, worst, np.repeat(np.arange(len(design)), raters)


@pytest.mark.parametrize(("n_items", "k"), [(100, 4), (37, 4), (60, 5)])
def test_design_balances_appearances_and_pairs(n_items, k):
    design = bws_tuples(n_items, k=k, rng=np.random.default_rng(3))
    assert design.shape == (2 * n_items, k)
    assert all(len(set(row)) == k for row in design)
    appearances = np.bincount(design.ravel(), minlength=n_items)
    assert appearances.max() - appearances.min() <= 1
    pairs = co_occurrence(design, n_items)
    random_pairs = co_occurrence(bws_tuples(n_items, k=k, rng=np.random.default_rng(3), n_sweeps=0), n_items)
    assert pairs.sum() == random_pairs.sum() == 2 * n_items * k * (k - 1) // 2
    # an item meets 2k(k-1) others: with many more items no pair need meet twice, near that a few do
    assert pairs.max() <= 2
    assert (pairs > 1).sum() <= (random_pairs > 1).sum() / 5
    if n_items > 3 * 2 * k * (k - 1):
        assert pairs.max() == 1


def test_design_on_few_items_spreads_pair_counts_evenly():
    design = bws_tuples(8, rng=np.random.default_rng(0))  # 16 tuples: 96 pair slots over 28 pairs
    pairs = co_occurrence(design, 8)
    assert pairs.sum() == 16 * 6
    assert sorted(pairs.tolist()) == [3] * 16 + [4] * 12  # the most even split of 96 over 28
    local = co_occurrence(bws_tuples(8, rng=np.random.default_rng(1)), 8)  # a swap search can stop one off
    assert local.min() >= 2 and local.max() <= 4 and (local == 2).sum() <= 1
    assert np.array_equal(design, bws_tuples(8, rng=np.random.default_rng(0)))


def test_simulation_recovers_a_known_ranking_at_the_usual_design_size():
    # 100 items, 2N 4-tuples, 8 answers a tuple
    rng = np.random.default_rng(11)
    theta = rng.normal(size=100)
    tuples, best, worst, units = simulate(theta, bws_tuples(100, rng=rng), 8, rng)
    counted = bws_scores(tuples, best, worst)
    fitted = maxdiff(tuples, best, worst, n_resamples=0)
    assert stats.spearmanr(theta, fitted.strengths).statistic >= 0.95
    # counting ignores who an item met; it falls just short at this size (0.947 to 0.961 over seeds)
    assert stats.spearmanr(theta, counted.scores).statistic >= 0.93
    assert fitted.gradient_norm < 1e-8


def test_maxdiff_equals_a_direct_maximisation_of_its_likelihood():
    rng = np.random.default_rng(5)
    theta = rng.normal(size=7)
    tuples, best, worst, _ = simulate(theta, bws_tuples(7, k=3, rng=rng), 6, rng)
    pairs = list(permutations(range(3), 2))

    def negloglik(t):
        t = np.append(t, -t.sum())
        logits = np.stack([t[tuples[:, a]] - t[tuples[:, b]] for a, b in pairs], axis=1)
        return -(t[best] - t[worst] - np.log(np.exp(logits).sum(axis=1))).sum()

    direct = optimize.minimize(negloglik, np.zeros(6), method="BFGS", options={"gtol": 1e-9}).x
    fit = maxdiff(tuples, best, worst, n_resamples=0)
    assert np.allclose(fit.strengths, np.append(direct, -direct.sum()), atol=1e-5)
    assert fit.log_likelihood == pytest.approx(-negloglik(direct), abs=1e-8)


def test_maxdiff_bootstrap_intervals_cover_the_estimate_and_repeat_with_the_seed():
    rng = np.random.default_rng(2)
    tuples, best, worst, units = simulate(rng.normal(size=12), bws_tuples(12, rng=rng), 4, rng)
    one = maxdiff(tuples, best, worst, units=units, n_resamples=60, rng=np.random.default_rng(9))
    two = maxdiff(tuples, best, worst, units=units, n_resamples=60, rng=np.random.default_rng(9))
    assert one == two
    assert all(lo <= v <= hi for v, lo, hi in zip(one.strengths, one.ci_low, one.ci_high, strict=True))


def test_maxdiff_without_a_finite_estimate():
    with pytest.raises(InsufficientDataError, match="always picked best"):
        maxdiff([["a", "b", "c"]] * 2, ["a", "a"], ["c", "b"], n_resamples=0)


def test_counting_scores_by_hand():
    s = bws_scores([[1, 2, 3, 4], [1, 2, 3, 5], [2, 3, 4, 5]], [1, 1, 5], [4, 2, 2])
    assert s.items == (1, 2, 3, 4, 5)
    assert s.appearances == (2, 3, 3, 2, 2)
    assert s.scores == (1.0, -2 / 3, 0.0, -0.5, 0.5)


def spearman_brown_by_hand(tuples, best, worst, units, seed, n_splits):
    """The published procedure written plainly: per tuple a random half of its answers."""
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_splits):
        halves = ([], [])
        for u in np.unique(units):
            rows = rng.permutation(np.flatnonzero(units == u))
            halves[0].extend(rows[: len(rows) // 2])
            halves[1].extend(rows[len(rows) // 2 :])
        counted = [bws_scores(tuples[h], best[h], worst[h]) for h in halves]
        scores = [dict(zip(c.items, c.scores, strict=True)) for c in counted]
        common = sorted(set(scores[0]) & set(scores[1]))
        r = stats.spearmanr([scores[0][i] for i in common], [scores[1][i] for i in common]).statistic
        values.append(2 * r / (1 + r))
    return np.mean(values)


def test_split_half_reliability_follows_the_published_procedure():
    rng = np.random.default_rng(4)
    theta = rng.normal(size=60)
    tuples, best, worst, units = simulate(theta, bws_tuples(60, rng=rng, n_sweeps=2), 8, rng)
    ours = split_half_reliability(tuples, best, worst, units=units, n_splits=100, rng=np.random.default_rng(1))
    assert 0 < ours.half < ours.corrected < 1
    assert ours.corrected_low <= ours.corrected <= ours.corrected_high
    # an independent run of the same random procedure agrees within the splits' Monte Carlo error
    assert ours.corrected == pytest.approx(spearman_brown_by_hand(tuples, best, worst, units, 2, 100), abs=0.01)
    # more answers per tuple: more reliable
    tuples2, best2, worst2, units2 = simulate(theta, bws_tuples(60, rng=rng, n_sweeps=2), 2, rng)
    fewer = split_half_reliability(tuples2, best2, worst2, units=units2, n_splits=50, rng=rng)
    assert fewer.corrected < ours.corrected


def test_split_half_needs_tuples_judged_twice():
    with pytest.raises(InsufficientDataError, match="three items"):
        split_half_reliability([[1, 2, 3], [2, 3, 4]], [1, 2], [3, 4], units=[1, 2], rng=np.random.default_rng(0))


def test_implied_pair_agreement_by_hand():
    # tuple t1 (a b c d): rater 1 best a worst d, rater 2 best b worst d
    # stated pairs r1: a>b a>c a>d b>d c>d; r2: b>a b>c b>d a>d c>d; shared: ab (disagree), ad bd cd (agree)
    r = implied_pair_agreement(
        [["a", "b", "c", "d"], ["a", "b", "c", "d"], ["a", "b", "c", "e"]],
        ["a", "b", "a"],
        ["d", "d", "e"],
        units=["t1", "t1", "t2"],
    )
    assert (r.n_comparisons, r.agreement, r.n_tuples) == (4, 0.75, 2)
    # all pairs over three raters: every pair of raters compared
    brute = []
    answers = [("a", "d"), ("b", "d"), ("a", "c")]
    for (b1, w1), (b2, w2) in combinations(answers, 2):
        for x, y in combinations("abcd", 2):
            s1 = 1 if (x == b1 or y == w1) else -1 if (y == b1 or x == w1) else 0
            s2 = 1 if (x == b2 or y == w2) else -1 if (y == b2 or x == w2) else 0
            if s1 and s2:
                brute.append(s1 == s2)
    three = implied_pair_agreement(
        [list("abcd")] * 3, [a for a, _ in answers], [w for _, w in answers], units=[1, 1, 1]
    )
    assert (three.n_comparisons, three.agreement) == (len(brute), np.mean(brute))


@pytest.mark.parametrize(
    ("tuples", "best", "worst", "message"),
    [
        ([["a", "a", "b"]], ["a"], ["b"], "twice in one tuple"),
        ([["a", "b", "c"]], ["a"], ["a"], "judgment 0: best and worst"),
        ([["a", "b", "c"]], ["d"], ["a"], "judgment 0"),
        ([["a", "b", "c"]], ["a", "b"], ["c"], "one element per judgment"),
        (["a", "b", "c"], ["a"], ["c"], "2-D"),
    ],
)
def test_bad_input(tuples, best, worst, message):
    with pytest.raises(ValueError, match=message):
        bws_scores(tuples, best, worst)


def test_bad_design_arguments():
    with pytest.raises(ValueError, match="k must be"):
        bws_tuples(3, k=4, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng"):
        bws_tuples(10, rng=1)


def test_maxdiff_on_pairs_is_half_of_bradley_terry_on_published_data():
    # with two items a best-worst answer is one comparison, and P(i best, j worst) = expit(2 (theta_i - theta_j)):
    # MaxDiff's strengths are half of Bradley–Terry's. Agresti, Categorical Data Analysis (2nd ed., 2002),
    # Table 10.11: 1987 AL East, strengths relative to Baltimore 1.58 1.44 1.29 1.25 1.11 0.68 0.
    won = [
        [0, 7, 9, 7, 7, 9, 11],
        [6, 0, 7, 5, 11, 9, 9],
        [4, 6, 0, 7, 7, 8, 12],
        [6, 8, 6, 0, 6, 7, 10],
        [6, 2, 6, 7, 0, 7, 12],
        [4, 4, 5, 6, 6, 0, 6],
        [2, 4, 1, 3, 1, 7, 0],
    ]
    best, worst = zip(*[(i, j) for i in range(7) for j in range(7) for _ in range(won[i][j])], strict=True)
    fit = maxdiff(np.column_stack([best, worst]), best, worst, n_resamples=0)
    relative = 2 * (np.array(fit.strengths) - fit.strengths[6])
    assert np.round(relative, 2).tolist() == [1.58, 1.44, 1.29, 1.25, 1.11, 0.68, 0.0]
