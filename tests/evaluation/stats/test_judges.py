"""Judge agreement: the two-coder alphas against agreement.stats and the krippendorff package."""

import krippendorff
import numpy as np
import pytest
from scipy import stats

from agreement.stats import krippendorff_alpha
from evaluation.stats import InsufficientDataError, judge_agreement, pairwise_agreement


def test_krippendorff_2011_binary_example():
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", two observers: alpha = 0.095
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert round(float(pairwise_agreement(a, b, statistic="alpha_nominal")[0]), 3) == 0.095


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("statistic", "level"), [("alpha_interval", "interval"), ("alpha_nominal", "nominal")])
def test_two_coder_alpha_equals_general_implementations(seed, statistic, level):
    rng = np.random.default_rng(seed)
    x = rng.integers(1, 6, 80).astype(float)
    y = np.clip(x + rng.integers(-1, 2, 80), 1, 5)
    x[rng.random(80) < 0.1] = np.nan
    y[rng.random(80) < 0.1] = np.nan
    mine = pairwise_agreement(x, y, statistic=statistic)[0]
    data = np.vstack([x, y])
    assert mine == pytest.approx(krippendorff.alpha(data, level_of_measurement=level), abs=1e-12)
    assert mine == pytest.approx(krippendorff_alpha(data, level_of_measurement=level).value, abs=1e-12)


def test_weights_equal_materialised_resample():
    rng = np.random.default_rng(1)
    x = rng.normal(size=50)
    y = x + rng.normal(size=50)
    w = rng.integers(0, 3, 50).astype(float)
    rows = np.repeat(np.arange(50), w.astype(int))
    assert pairwise_agreement(x, y, weights=w[None])[0] == pytest.approx(
        krippendorff.alpha(np.vstack([x[rows], y[rows]]), level_of_measurement="interval")
    )
    assert pairwise_agreement(x, y, statistic="pearson", weights=w[None])[0] == pytest.approx(
        stats.pearsonr(x[rows], y[rows]).statistic
    )


def test_judge_report_pieces():
    rng = np.random.default_rng(2)
    truth = rng.normal(size=300)
    humans = np.array([truth + rng.normal(scale=0.8, size=300) for _ in range(3)])
    judge = truth + rng.normal(scale=2.0, size=300)
    r = judge_agreement(humans, judge, n_resamples=200, rng=np.random.default_rng(0))
    pairs = [pairwise_agreement(humans[a], humans[b])[0] for a, b in ((0, 1), (0, 2), (1, 2))]
    assert r.human_human.value == pytest.approx(np.mean(pairs))
    assert r.judge_human.value == pytest.approx(np.mean([e.value for e in r.judge_per_human]))
    loo = [pairwise_agreement(humans[k], np.delete(humans, k, 0).mean(0))[0] for k in range(3)]
    assert r.human_consensus.value == pytest.approx(np.mean(loo))
    # a noisier judge stays below the human ceiling
    assert r.judge_human.ci_high < r.human_human.ci_low
    assert r.n_units == 300 and r.n_humans == 3


def test_one_human_is_not_enough():
    with pytest.raises(InsufficientDataError, match="at least two humans"):
        judge_agreement([[1, 2, 3]], [1, 2, 3], n_resamples=0)
