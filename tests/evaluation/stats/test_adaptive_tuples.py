"""Adaptive best–worst tuples: allocation probabilities, the weighted MaxDiff fit and its unbiasedness."""

from itertools import combinations

import numpy as np
import pytest
from scipy import special

from evaluation.stats import ipw_maxdiff, maxdiff, tuple_allocation_probabilities
from evaluation.stats.adaptive_tuples import _choices

THETA = np.linspace(-1.2, 1.2, 8)
# every 4-tuple of 8 items: room for the allocation to pick
CANDIDATES = np.array(list(combinations(range(8), 4)))


def study(
    theta, candidates, n, rng, *, adaptive, every=20, target="ranking", top_k=None, weighting="inverse_probability"
):
    """MaxDiff answers drawn in batches of ``every`` with the allocation computed from those before."""
    choices = _choices(candidates.shape[1])
    tuples, best, worst = np.zeros((n, candidates.shape[1]), int), np.zeros(n, int), np.zeros(n, int)
    probability = np.zeros(n)
    probs = np.full(len(candidates), 1 / len(candidates))
    for start in range(0, n, every):
        if adaptive:
            probs = tuple_allocation_probabilities(
                len(theta),
                candidates,
                tuples[:start],
                best[:start],
                worst[:start],
                probability[:start],
                target=target,
                top_k=top_k,
                weighting=weighting,
            )
        for t in range(start, start + every):
            a = rng.choice(len(candidates), p=probs)
            answer = choices[rng.choice(len(choices), p=special.softmax(choices @ theta[candidates[a]]))]
            tuples[t], probability[t] = candidates[a], probs[a]
            best[t], worst[t] = candidates[a][answer == 1][0], candidates[a][answer == -1][0]
    return tuples, best, worst, probability


def test_weighted_maxdiff_is_unbiased_under_adaptive_allocation():
    # Given 100 adaptive studies of 240 answers each (8 items, every 4-tuple a candidate)
    rng = np.random.default_rng(1)
    errors, covered = [], []
    for _ in range(100):
        fit = ipw_maxdiff(*study(THETA, CANDIDATES, 240, rng, adaptive=True))
        errors.append(np.array(fit.strengths) - THETA)
        covered.append((np.array(fit.ci_low) <= THETA) & (THETA <= np.array(fit.ci_high)))
    errors = np.array(errors)
    # then every item's mean error lies within about 2 standard errors of the mean (here at most 1.7)
    z = errors.mean(axis=0) / (errors.std(axis=0, ddof=1) / np.sqrt(len(errors)))
    assert np.abs(z).max() < 2.5, z
    # and the sandwich intervals cover near their nominal 95%
    assert 0.88 <= np.mean(covered) <= 0.99


def test_allocation_adapts_after_the_cold_start_and_keeps_the_floor():
    rng = np.random.default_rng(3)
    tuples, best, worst, probability = study(THETA, CANDIDATES, 80, rng, adaptive=False)
    uniform = np.full(len(CANDIDATES), 1 / len(CANDIDATES))
    before = tuple_allocation_probabilities(8, CANDIDATES, tuples[:69], best[:69], worst[:69], probability[:69])
    np.testing.assert_allclose(before, uniform)
    after = tuple_allocation_probabilities(
        8, CANDIDATES, tuples, best, worst, probability, target="top_k", top_k=1, floor=0.3
    )
    assert after.sum() == pytest.approx(1.0)
    assert after.min() >= 0.3 * uniform[0] - 1e-12
    # the top item's tuples get most of the draw when the target is the top one
    with_top = (CANDIDATES == 7).any(axis=1)
    assert after[with_top].sum() > 0.6 > with_top.mean()
    unweighted = tuple_allocation_probabilities(8, CANDIDATES, tuples, best, worst, probability, weighting="none")
    assert unweighted.sum() == pytest.approx(1.0) and unweighted.min() >= 0.1 * uniform[0] - 1e-12


def test_equal_probabilities_give_the_maxdiff_fit():
    rng = np.random.default_rng(5)
    tuples, best, worst, probability = study(THETA, CANDIDATES, 200, rng, adaptive=False)
    plain = maxdiff(tuples, best, worst, n_resamples=0)
    for weighting in ("inverse_probability", "stabilised", "none"):
        fit = ipw_maxdiff(tuples, best, worst, probability, weighting=weighting)
        np.testing.assert_allclose(fit.strengths, plain.strengths, atol=1e-8)
        assert fit.weighting == weighting and fit.n_judgments == 200
    # the weights change the fit once the probabilities differ
    skewed = np.where(best == 7, 0.5, 0.01)
    assert not np.allclose(ipw_maxdiff(tuples, best, worst, skewed).strengths, plain.strengths)


def test_adaptive_allocation_narrows_the_top_contrast():
    # the standard error of the difference between the top two after 300 answers, allocated for the top one and
    # fitted unweighted (the estimator whose variance that allocation minimises), against the uniform draw
    rng = np.random.default_rng(11)
    se = {True: [], False: []}
    for _ in range(6):
        for adaptive in (True, False):
            answers = study(THETA, CANDIDATES, 300, rng, adaptive=adaptive, target="top_k", top_k=1, weighting="none")
            se[adaptive].append(ipw_maxdiff(*answers, weighting="none").contrast_se[0])
    # measured 0.123 against 0.174
    assert np.mean(se[True]) < 0.85 * np.mean(se[False])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"target": "top"}, "target"),
        ({"target": "top_k", "top_k": 8}, "top_k must be a whole number from 1 to 7"),
        ({"floor": 0}, "floor must be a number in (0, 1]"),
        ({"weighting": "stabilised"}, "weighting"),
        ({"cold_start": -1}, "cold_start"),
        ({"probability": [0.0]}, "probability must be the sampling probability"),
        ({"candidates": [[0, 9, 1, 2]]}, "candidates must hold integer item codes in 0 … 7"),
    ],
)
def test_allocation_input_validation(kwargs, message):
    args = {"candidates": CANDIDATES, "tuples": [[0, 1, 2, 3]], "best": [0], "worst": [3], "probability": [0.5]}
    args |= kwargs
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tuple_allocation_probabilities(
            8,
            args.pop("candidates"),
            args.pop("tuples"),
            args.pop("best"),
            args.pop("worst"),
            args.pop("probability"),
            **args,
        )


def test_weighted_fit_input_validation():
    with pytest.raises(ValueError, match="one element per judgment"):
        ipw_maxdiff([["a", "b", "c"]], ["a"], ["c"], [0.5, 0.5])
    with pytest.raises(ValueError, match="in \\(0, 1\\]"):
        ipw_maxdiff([["a", "b", "c"]], ["a"], ["c"], [1.5])
    with pytest.raises(ValueError, match="weighting"):
        ipw_maxdiff([["a", "b", "c"]], ["a"], ["c"], [0.5], weighting="half")
