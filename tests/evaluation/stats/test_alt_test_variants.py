"""The alt-test's variants from the authors' appendix and FAQ (Calderon, Reichart & Dror, ACL 2025):
the Wilcoxon signed-rank test for raters with fewer than 30 items, and the single-expert scenario
(the judge and each recruited annotator compete to represent one trusted expert). Hand-computed
cases, an exact sign-flip enumeration and the normal approximation written out here, scipy.stats on
the same differences, a loop-by-loop reference, and simulation."""

from itertools import product

import numpy as np
import pytest
from scipy import stats

from evaluation.stats import InsufficientDataError, alt_test, alt_test_single_expert, benjamini_yekutieli

NAN = np.nan

# the hand case of test_alt_test.py: the judge is never worse, each rater slips once or twice
HAND_HUMANS = [[1, 1, 2, 0, 1, 2], [1, 2, 2, 0, 0, 2], [1, 1, 2, 1, 0, 0]]
HAND_JUDGE = [1, 1, 2, 0, 0, 2]


def midranks(values) -> np.ndarray:
    return stats.rankdata(np.abs(values))


def exact_signed_rank_p(d, epsilon) -> float:
    """P(W+ <= observed) over all 2^n sign flips of the mid-ranked |d - eps|, zeros dropped."""
    x = np.asarray(d, dtype=float) - epsilon
    x = x[x != 0]
    ranks = midranks(x)
    observed = ranks[x > 0].sum()
    sums = np.array(list(product([0, 1], repeat=len(x)))) @ ranks
    return float(np.mean(sums <= observed + 1e-9))


def normal_signed_rank_p(d, epsilon) -> float:
    """The normal approximation: mean n(n+1)/4, variance n(n+1)(2n+1)/24 less sum(t^3 - t)/48 over
    tied groups (no continuity correction)."""
    x = np.asarray(d, dtype=float) - epsilon
    x = x[x != 0]
    n = len(x)
    ranks = midranks(x)
    w = ranks[x > 0].sum()
    _, ties = np.unique(np.abs(x), return_counts=True)
    var = n * (n + 1) * (2 * n + 1) / 24 - np.sum(ties**3 - ties) / 48
    z = (w - n * (n + 1) / 4) / np.sqrt(var)
    return float(stats.norm.cdf(z))


def test_wilcoxon_on_the_hand_case_wins_where_the_t_test_cannot():
    # d - 0.1 is -0.1 five times and -1.1 once for every rater: no positive rank, W+ = 0, and only
    # one of the 2^6 sign patterns is as extreme: p = 1/64 = 0.0156 <= the largest BY threshold
    # 0.027 (q = 0.05, m = 3), so all three nulls fall; the t-test's p-values (0.085, 0.085,
    # 0.047) reject none
    (r,) = alt_test(HAND_HUMANS, HAND_JUDGE, alignment="accuracy", epsilon=0.1, test="wilcoxon", min_items_per_rater=6)
    assert r.test == "wilcoxon"
    assert [c.p_value for c in r.comparisons] == pytest.approx([1 / 64] * 3)
    assert [c.t_statistic for c in r.comparisons] == [0.0, 0.0, 0.0]
    assert (r.winning_rate, r.passed) == (1.0, True)
    assert any("Wilcoxon signed-rank test in place of the t-test" in n for n in r.notes)
    (t,) = alt_test(HAND_HUMANS, HAND_JUDGE, alignment="accuracy", epsilon=0.1, min_items_per_rater=6)
    assert t.test == "t" and t.winning_rate == 0.0


SINGLE_EXPERT = [0, 1, 2, 0, 1, 2, 0, 1]
SINGLE_ANNOTATORS = [[0, 1, 1, 0, 1, 2, 2, 1], [0, 0, 2, 0, 1, 2, 0, 1]]
SINGLE_JUDGE = [0, 1, 2, 0, 0, 2, 0, 1]
# scored by matching the expert: annotator A misses items 2 and 6, B item 1, the judge item 4
#   A: W^f 1 1 1 1 0 1 1 1, W^h 1 1 0 1 1 1 0 1 -> d = 0 0 -1 0 1 0 -1 0
#   B: W^f 1 1 1 1 0 1 1 1, W^h 1 0 1 1 1 1 1 1 -> d = 0 -1 0 0 1 0 0 0
SINGLE_D = {0: [0, 0, -1, 0, 1, 0, -1, 0], 1: [0, -1, 0, 0, 1, 0, 0, 0]}


def test_single_expert_hand_case_with_both_tests():
    (r,) = alt_test_single_expert(
        SINGLE_EXPERT, SINGLE_ANNOTATORS, SINGLE_JUDGE, alignment="accuracy", epsilon=0.1, min_items_per_rater=8
    )
    a, b = r.comparisons
    assert (a.judge_advantage, a.rater_advantage) == (7 / 8, 6 / 8)
    assert (b.judge_advantage, b.rater_advantage) == (7 / 8, 7 / 8)
    for c in r.comparisons:
        d = np.array(SINGLE_D[c.rater], dtype=float)
        t = (d.mean() - 0.1) / (d.std(ddof=1) / np.sqrt(8))
        assert c.p_value == pytest.approx(stats.t.cdf(t, 7))
    assert r.advantage_probability == 7 / 8 and r.n_items == 8
    (w,) = alt_test_single_expert(
        SINGLE_EXPERT,
        SINGLE_ANNOTATORS,
        SINGLE_JUDGE,
        alignment="accuracy",
        epsilon=0.1,
        test="wilcoxon",
        min_items_per_rater=8,
    )
    # A: |d - 0.1| is 0.1 five times (mid-rank 3), 0.9 once (rank 6), 1.1 twice (7.5); W+ = 6.
    # Sign patterns with W+ <= 6: none positive (1), one 3 (5), two 3s (10), the 6 alone (1):
    # 17 of 256
    assert w.comparisons[0].p_value == pytest.approx(17 / 256)
    assert w.comparisons[0].t_statistic == 6.0
    assert w.comparisons[1].p_value == pytest.approx(exact_signed_rank_p(SINGLE_D[1], 0.1))


def test_single_expert_numeric_case():
    # minus the distance to the expert's 3: annotator 0 -1 -2 0, judge -1 0 0 -1 -> d = 1 -1 -1 1
    (r,) = alt_test_single_expert(
        [3, 3, 3, 3], [[3, 4, 1, 3]], [4, 3, 3, 2], alignment="neg_rmse", epsilon=0.2, min_items_per_rater=4
    )
    (c,) = r.comparisons
    assert (c.judge_advantage, c.rater_advantage) == (0.5, 0.5)
    assert c.p_value == pytest.approx(stats.t.cdf((0 - 0.2) / (np.std([1, -1, -1, 1], ddof=1) / 2), 3))
    assert any("only 1 rater(s) tested" in n for n in r.notes)


def test_single_expert_is_the_leave_one_out_test_with_the_expert_as_the_only_other_rater():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 4, 60).astype(float)
    expert = truth.copy()
    annotator = np.where(rng.random(60) < 0.3, rng.integers(0, 4, 60), truth).astype(float)
    judge = np.where(rng.random(60) < 0.2, rng.integers(0, 4, 60), truth).astype(float)
    (single,) = alt_test_single_expert(expert, [annotator], judge, alignment="accuracy", epsilon=0.1)
    (pair,) = alt_test([expert, annotator], judge, alignment="accuracy", epsilon=0.1)
    left_out_annotator = next(c for c in pair.comparisons if c.rater == 1)
    (c,) = single.comparisons
    assert (c.p_value, c.judge_advantage, c.rater_advantage) == (
        left_out_annotator.p_value,
        left_out_annotator.judge_advantage,
        left_out_annotator.rater_advantage,
    )


def reference_single_expert(expert, annotators, judge, alignment, epsilon, q, min_items, test):
    """The single-expert procedure written out with loops, the p-values from scipy.stats directly."""
    pvals, rhos = [], []
    for row in annotators:
        items = [i for i in range(len(judge)) if not np.isnan(expert[i] + row[i] + judge[i])]
        if len(items) < min_items:
            continue

        def score(x, i):
            return float(x == expert[i]) if alignment == "accuracy" else -abs(x - expert[i])

        wf = np.array([score(judge[i], i) >= score(row[i], i) for i in items], dtype=float)
        wh = np.array([score(row[i], i) >= score(judge[i], i) for i in items], dtype=float)
        if test == "t":
            pvals.append(stats.ttest_1samp(wh - wf, epsilon, alternative="less").pvalue)
        else:
            pvals.append(stats.wilcoxon(wh - wf - epsilon, alternative="less").pvalue)
        rhos.append(wf.mean())
    wins = benjamini_yekutieli(pvals, q=q)
    return wins.mean(), float(np.mean(rhos)), np.array(pvals)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("alignment", "test", "n_items"), [("accuracy", "t", 80), ("neg_rmse", "wilcoxon", 24)])
def test_single_expert_equals_loop_reference_with_missing_data(seed, alignment, test, n_items):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n_items).astype(float)
    expert = truth.copy()
    expert[rng.random(n_items) < 0.1] = NAN
    annotators = np.array([np.clip(truth + rng.integers(-1, 2, n_items), 1, 5) for _ in range(4)])
    annotators[rng.random(annotators.shape) < 0.2] = NAN
    judge = np.clip(truth + rng.integers(-1, 2, n_items), 1, 5)
    min_items = 30 if test == "t" else 10
    (r,) = alt_test_single_expert(expert, annotators, judge, alignment=alignment, epsilon=0.15, test=test)
    omega, rho, p = reference_single_expert(expert, annotators, judge, alignment, 0.15, 0.05, min_items, test)
    assert r.winning_rate == pytest.approx(omega)
    assert r.advantage_probability == pytest.approx(rho)
    np.testing.assert_allclose([c.p_value for c in r.comparisons], p)


@pytest.mark.parametrize("n_items", [9, 12, 20, 29])
def test_wilcoxon_p_values_match_enumeration_or_normal_approximation_and_scipy(n_items):
    # scipy gives the exact tied-rank p-value up to 13 differences and the normal approximation
    # (tie-corrected variance) beyond: both written out above, and scipy called directly
    rng = np.random.default_rng(n_items)
    truth = rng.integers(0, 3, n_items).astype(float)
    humans = np.array([np.where(rng.random(n_items) < 0.3, rng.integers(0, 3, n_items), truth) for _ in range(3)])
    judge = np.where(rng.random(n_items) < 0.3, rng.integers(0, 3, n_items), truth).astype(float)
    (r,) = alt_test(humans, judge, alignment="accuracy", epsilon=0.1, test="wilcoxon", min_items_per_rater=9)
    for c in r.comparisons:
        others = np.delete(humans, c.rater, axis=0)
        sh = (others == humans[c.rater]).mean(axis=0)
        sf = (others == judge).mean(axis=0)
        d = (sh >= sf).astype(float) - (sf >= sh).astype(float)
        by_hand = exact_signed_rank_p(d, 0.1) if n_items <= 13 else normal_signed_rank_p(d, 0.1)
        assert c.p_value == pytest.approx(by_hand, rel=1e-9)
        assert c.p_value == pytest.approx(stats.wilcoxon(d - 0.1, alternative="less").pvalue, rel=1e-12)


def test_wilcoxon_with_no_difference_left_is_undefined_not_an_error():
    # epsilon = 0 and a judge identical to every rater: every difference is zero and dropped
    humans = np.tile([0.0, 1.0], (3, 6))
    (r,) = alt_test(humans, humans[0], alignment="accuracy", epsilon=0.0, test="wilcoxon")
    assert all(np.isnan(c.p_value) and not c.judge_wins for c in r.comparisons)
    assert r.winning_rate == 0.0


def test_variant_input_validation_and_thin_data():
    with pytest.raises(ValueError, match="test must be one of 't', 'wilcoxon'"):
        alt_test(np.zeros((3, 40)), np.zeros(40), alignment="accuracy", epsilon=0.1, test="sign")
    with pytest.raises(ValueError, match="expert has 5 items, annotators 4 and judge 4"):
        alt_test_single_expert(np.zeros(5), np.zeros((2, 4)), np.zeros(4), alignment="accuracy", epsilon=0.1)
    with pytest.raises(InsufficientDataError, match="no rater labelled 10 items together with the expert"):
        alt_test_single_expert(
            np.zeros(9), np.zeros((2, 9)), np.zeros(9), alignment="accuracy", epsilon=0.1, test="wilcoxon"
        )
    # a rater below the t-test's 30 items is tested with Wilcoxon's default floor of 10
    (r,) = alt_test(np.zeros((3, 12)), np.zeros(12), alignment="accuracy", epsilon=0.1, test="wilcoxon")
    assert r.n_raters == 3 and any("only 12 items" in n for n in r.notes)


def _noisy(rng, truth, noise, n_categories=4):
    return np.where(rng.random(len(truth)) < noise, rng.integers(0, n_categories, len(truth)), truth).astype(float)


def test_simulated_single_expert_keeps_the_level_and_separates_judges():
    # the authors' simulation design (appendix C) with the expert as the truth: three recruited
    # annotators at noise 0.3; a judge with the same noise is exchangeable with them
    rng = np.random.default_rng(20250702)
    runs, raw, passes_at_zero, good_passes, noisy_passes = 300, 0, 0, 0, 0
    for _ in range(runs):
        expert = rng.integers(0, 4, 100).astype(float)
        annotators = np.array([_noisy(rng, expert, 0.3) for _ in range(3)])
        (same,) = alt_test_single_expert(
            expert, annotators, _noisy(rng, expert, 0.3), alignment="accuracy", epsilon=0.0
        )
        raw += sum(c.p_value <= 0.05 for c in same.comparisons)
        passes_at_zero += same.passed
        (good,) = alt_test_single_expert(
            expert, annotators, _noisy(rng, expert, 0.1), alignment="accuracy", epsilon=0.1
        )
        good_passes += good.passed
        (bad,) = alt_test_single_expert(expert, annotators, _noisy(rng, expert, 0.8), alignment="accuracy", epsilon=0.1)
        noisy_passes += bad.passed
    assert 0.025 <= raw / (3 * runs) <= 0.08
    assert passes_at_zero / runs <= 0.05
    assert good_passes / runs >= 0.9
    assert noisy_passes / runs <= 0.02


def test_simulated_wilcoxon_on_twenty_items_keeps_the_level():
    # 20 items per rater, below the t-test's 30: the judge drawn like the raters is rejected at
    # no more than about the nominal rate (the test is discrete and drops ties: conservative)
    rng = np.random.default_rng(20250703)
    runs, raw, good_passes = 400, 0, 0
    for _ in range(runs):
        truth = rng.integers(0, 4, 20)
        humans = np.array([_noisy(rng, truth, 0.3) for _ in range(3)])
        (same,) = alt_test(humans, _noisy(rng, truth, 0.3), alignment="accuracy", epsilon=0.0, test="wilcoxon")
        raw += sum(c.p_value <= 0.05 for c in same.comparisons if not np.isnan(c.p_value))
        (good,) = alt_test(humans, truth.astype(float), alignment="accuracy", epsilon=0.2, test="wilcoxon")
        good_passes += good.passed
    assert raw / (3 * runs) <= 0.07
    assert good_passes / runs >= 0.8
