"""The alternative annotator test (Calderon, Reichart & Dror, ACL 2025): hand-computed cases, a
loop-by-loop reference of the published procedure on random data, and its behaviour in simulation."""

import numpy as np
import pytest
from scipy import stats

from evaluation.stats import InsufficientDataError, alt_test, benjamini_yekutieli

NAN = np.nan


def one_sided_p(d, epsilon):
    """p-value of H0: E[d] >= epsilon by the t formula, from differences listed by hand."""
    d = np.asarray(d, dtype=float)
    t = (d.mean() - epsilon) / (d.std(ddof=1) / np.sqrt(len(d)))
    return stats.t.cdf(t, len(d) - 1)


# Three raters and a judge on six items (categorical). Leaving out each rater in turn and
# scoring by the share of the remaining raters matched gives, item by item (W^h - W^f):
#   A: 0 0 0 0 -1 0   (item 4: A=1 against {0, 0}, the judge's 0 matches both)
#   B: 0 -1 0 0 0 0   (item 1: B=2 against {1, 1})
#   C: 0 0 0 -1 0 -1  (items 3 and 5)
# every other item is a tie, which counts for both sides, and the judge is never worse.
HAND_HUMANS = [[1, 1, 2, 0, 1, 2], [1, 2, 2, 0, 0, 2], [1, 1, 2, 1, 0, 0]]
HAND_JUDGE = [1, 1, 2, 0, 0, 2]
HAND_D = {0: [0, 0, 0, 0, -1, 0], 1: [0, -1, 0, 0, 0, 0], 2: [0, 0, 0, -1, 0, -1]}


def test_hand_computed_categorical_case():
    (r,) = alt_test(HAND_HUMANS, HAND_JUDGE, alignment="accuracy", epsilon=0.1, min_items_per_rater=6)
    assert r.n_items == 6 and r.n_raters == 3
    for c in r.comparisons:
        assert c.p_value == pytest.approx(one_sided_p(HAND_D[c.rater], 0.1))
        assert c.judge_advantage == 1.0
        assert c.rater_advantage == pytest.approx(1 + np.mean(HAND_D[c.rater]))
    # p = 0.085, 0.085, 0.047: none below the BY thresholds at q = 0.05 (0.009, 0.018, 0.027)
    assert [c.judge_wins for c in r.comparisons] == [False, False, False]
    assert (r.winning_rate, r.advantage_probability, r.passed) == (0.0, 1.0, False)


def test_step_up_rejects_what_step_down_would_not():
    # at q = 0.2 the thresholds are 0.036, 0.073, 0.109: the smallest p (0.047) and the next
    # (0.085) miss theirs, the largest (0.085) meets its own, so step-up rejects all three nulls
    # where a step-down procedure stops at the first and rejects none
    p = sorted(one_sided_p(d, 0.1) for d in HAND_D.values())
    thresholds = np.arange(1, 4) / 3 * 0.2 / (1 + 1 / 2 + 1 / 3)
    assert p[0] > thresholds[0] and p[1] > thresholds[1] and p[2] <= thresholds[2]
    (r,) = alt_test(HAND_HUMANS, HAND_JUDGE, alignment="accuracy", epsilon=0.1, q=0.2, min_items_per_rater=6)
    assert all(c.judge_wins for c in r.comparisons)
    assert (r.winning_rate, r.passed) == (1.0, True)


def test_benjamini_yekutieli_by_hand():
    # m = 4, c(4) = 25/12, q = 0.05: thresholds k/4 * 0.024 = 0.006, 0.012, 0.018, 0.024
    assert benjamini_yekutieli([0.03, 0.005, 0.017, 0.013]).tolist() == [False, True, True, True]
    assert benjamini_yekutieli([0.007, 0.013, 0.019, 0.025]).tolist() == [False] * 4
    assert benjamini_yekutieli([NAN, 0.001]).tolist() == [False, True]
    assert benjamini_yekutieli([]).tolist() == []


def test_hand_computed_numeric_case_ties_count_for_both():
    # two raters: each one's remaining rater is the other. Minus the absolute difference:
    # leave out A (others B = 2 2 4 4): A scores -1 0 -1 0, the judge -1 -1 -1 0 -> d = 0 1 0 0
    # leave out B (others A = 1 2 3 4): B scores -1 0 -1 0, the judge 0 -1 0 0 -> d = -1 1 -1 0
    humans = [[1, 2, 3, 4], [2, 2, 4, 4]]
    (r,) = alt_test(humans, [1, 3, 3, 4], alignment="neg_rmse", epsilon=0.2, min_items_per_rater=4)
    a, b = r.comparisons
    assert (a.judge_advantage, a.rater_advantage) == (0.75, 1.0)
    assert (b.judge_advantage, b.rater_advantage) == (0.75, 0.5)
    assert a.p_value == pytest.approx(one_sided_p([0, 1, 0, 0], 0.2))
    assert b.p_value == pytest.approx(one_sided_p([-1, 1, -1, 0], 0.2))
    assert r.advantage_probability == 0.75
    assert any("2 rater(s) tested" in n for n in r.notes)


def reference_alt_test(humans, judge, alignment, epsilon, q, min_items):
    """The published procedure written out with dictionaries and loops, as the paper states it."""
    ann = {h: {i: v for i, v in enumerate(row) if not np.isnan(v)} for h, row in enumerate(humans)}
    llm = {i: v for i, v in enumerate(judge) if not np.isnan(v)}
    raters_of = {}
    for h, labels in ann.items():
        for i in labels:
            raters_of.setdefault(i, []).append(h)
    keep = {i for i, hs in raters_of.items() if len(hs) >= 2 and i in llm}

    def score(x, others):
        if alignment == "accuracy":
            return np.mean([x == o for o in others])
        return -np.sqrt(np.mean([(x - o) ** 2 for o in others]))

    pvals, rhos = [], []
    for h in ann:
        items = [i for i in ann[h] if i in keep]
        if len(items) < min_items:
            continue
        d, wf = [], []
        for i in items:
            others = [ann[g][i] for g in raters_of[i] if g != h]
            sh, sf = score(ann[h][i], others), score(llm[i], others)
            wf.append(float(sf >= sh))
            d.append(float(sh >= sf) - wf[-1])
        pvals.append(stats.ttest_1samp(d, epsilon, alternative="less").pvalue)
        rhos.append(np.mean(wf))
    p = np.array(pvals)
    m = len(p)
    order = np.argsort(p)
    k = max([i + 1 for i in range(m) if p[order[i]] <= (i + 1) / m * q / sum(1 / np.arange(1, m + 1))] or [0])
    return k / m, float(np.mean(rhos)), p


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alignment", ["accuracy", "neg_rmse"])
def test_equals_loop_reference_with_missing_data(seed, alignment):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, 120).astype(float)
    humans = np.array([np.clip(truth + rng.integers(-1, 2, 120), 1, 5) for _ in range(5)])
    humans[rng.random(humans.shape) < 0.35] = NAN
    judge = np.clip(truth + rng.integers(-1, 2, 120), 1, 5)
    judge[rng.random(120) < 0.1] = NAN
    (r,) = alt_test(humans, judge, alignment=alignment, epsilon=0.15, q=0.05)
    omega, rho, p = reference_alt_test(humans, judge, alignment, 0.15, 0.05, 30)
    assert r.winning_rate == pytest.approx(omega)
    assert r.advantage_probability == pytest.approx(rho)
    np.testing.assert_allclose([c.p_value for c in r.comparisons], p)


def test_subgroups_tested_apart_and_corrected_together():
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 3, 200).astype(float)
    humans = np.array([np.where(rng.random(200) < 0.8, truth, rng.integers(0, 3, 200)) for _ in range(3)])
    groups = np.where(np.arange(200) < 100, "news", "dialogue")
    results = alt_test(humans, truth, alignment="accuracy", epsilon=0.1, groups=groups)
    assert [r.group for r in results] == ["dialogue", "news"]
    p = [c.p_value for r in results for c in r.comparisons]
    wins = benjamini_yekutieli(p)
    assert [c.judge_wins for r in results for c in r.comparisons] == wins.tolist()
    (alone,) = alt_test(humans[:, 100:], truth[100:], alignment="accuracy", epsilon=0.1)
    assert [c.p_value for c in alone.comparisons] == [c.p_value for c in results[0].comparisons]


def test_raters_with_too_few_items_are_skipped_and_thin_data_named():
    humans = np.full((4, 40), NAN)
    humans[:3] = np.tile([0.0, 1.0], 20)
    humans[3, :10] = 0.0
    (r,) = alt_test(humans, np.tile([0.0, 1.0], 20), alignment="accuracy", epsilon=0.1)
    assert r.skipped == (3,) and r.n_raters == 3
    assert any("only 40 items" in n for n in r.notes)
    assert any("1 rater(s) left out" in n for n in r.notes)
    with pytest.raises(InsufficientDataError, match="no rater labelled 30 items.*at least 2 raters on 50-100"):
        alt_test(humans[:, :20], np.zeros(20), alignment="accuracy", epsilon=0.1)
    with pytest.raises(InsufficientDataError, match="in subgroup 'b'"):
        alt_test(humans, np.zeros(40), alignment="accuracy", epsilon=0.1, groups=["a"] * 35 + ["b"] * 5)


def test_input_validation():
    h, j = np.zeros((3, 40)), np.zeros(40)
    with pytest.raises(ValueError, match="alignment must be one of 'accuracy', 'neg_rmse'"):
        alt_test(h, j, alignment="f1", epsilon=0.1)
    with pytest.raises(ValueError, match="epsilon must be a number from 0 to 1"):
        alt_test(h, j, alignment="accuracy", epsilon=1.5)
    with pytest.raises(ValueError, match="humans has 40 items but judge has 39"):
        alt_test(h, j[:-1], alignment="accuracy", epsilon=0.1)
    with pytest.raises(ValueError, match="groups must hold one label per item"):
        alt_test(h, j, alignment="accuracy", epsilon=0.1, groups=["a"])
    with pytest.raises(ValueError, match="q must be between 0 and 1"):
        benjamini_yekutieli([0.1], q=0)


def _study(rng, n_items, n_raters, judge_noise, rater_noise=0.3, n_categories=4):
    """The authors' simulation design (appendix C): a true label per item; each annotator keeps
    it with probability 1 - noise and otherwise draws a category at random."""
    truth = rng.integers(0, n_categories, n_items)

    def annotate(noise):
        return np.where(rng.random(n_items) < noise, rng.integers(0, n_categories, n_items), truth).astype(float)

    return np.array([annotate(rater_noise) for _ in range(n_raters)]), annotate(judge_noise)


def test_simulated_judge_like_the_raters_keeps_the_level_and_a_noisy_judge_fails():
    rng = np.random.default_rng(20250701)
    raw_rejections, passes_at_zero, passes_at_margin, noisy_passes, runs = 0, 0, 0, 0, 300
    for _ in range(runs):
        humans, judge = _study(rng, 100, 3, judge_noise=0.3)
        (at_zero,) = alt_test(humans, judge, alignment="accuracy", epsilon=0.0)
        # a judge exchangeable with the raters sits on the null boundary E[d] = 0 when epsilon = 0
        raw_rejections += sum(c.p_value <= 0.05 for c in at_zero.comparisons)
        passes_at_zero += at_zero.passed
        (margin,) = alt_test(humans, judge, alignment="accuracy", epsilon=0.2)
        passes_at_margin += margin.passed
        humans, noisy = _study(rng, 100, 3, judge_noise=0.8)
        (bad,) = alt_test(humans, noisy, alignment="accuracy", epsilon=0.1)
        noisy_passes += bad.passed
    # each one-sided test rejects at about its nominal 5% (3 tests per study)
    assert 0.025 <= raw_rejections / (3 * runs) <= 0.08
    # passing needs two of three rejections after the correction: at most the FDR level
    assert passes_at_zero / runs <= 0.05
    # with the expert margin the same judge passes nearly always; the noisy one almost never
    assert passes_at_margin / runs >= 0.9
    assert noisy_passes / runs <= 0.02
