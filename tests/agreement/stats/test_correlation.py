"""Correlations between two raters."""

import numpy as np
import pytest
from scipy import stats

from agreement.stats.correlation import rater_correlation
from tests.agreement.stats.published_data import ANSCOMBE_X, ANSCOMBE_X4, ANSCOMBE_Y, ANSCOMBE_Y4


@pytest.mark.parametrize(("x", "y"), [(ANSCOMBE_X, y) for y in ANSCOMBE_Y] + [(ANSCOMBE_X4, ANSCOMBE_Y4)])
def test_anscombe_quartet(x, y):
    # Anscombe (1973): r = 0.816 for all four data sets (set IV is 0.8165, printed 0.816)
    assert rater_correlation(x, y).value == pytest.approx(0.816, abs=6e-4)


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_matches_scipy_and_drops_missing(method):
    rng = np.random.default_rng(4)
    a = rng.integers(1, 6, 50).astype(float)
    b = np.clip(a + rng.integers(-1, 2, 50), 1, 5)
    a[3], b[7] = np.nan, np.nan
    keep = ~(np.isnan(a) | np.isnan(b))
    expected = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[method](
        a[keep], b[keep]
    )
    res = rater_correlation(a, b, method=method)
    assert res.value == pytest.approx(expected.statistic, abs=1e-12)
    assert res.p_value == pytest.approx(expected.pvalue, abs=1e-12)
    assert res.n_units == 48
    low, high = res.confidence_interval
    assert low < res.value < high


def test_pearson_interval_is_fisher_z():
    res = rater_correlation(ANSCOMBE_X, ANSCOMBE_Y[0])
    z, half = np.arctanh(res.value), 1.959963984540054 / np.sqrt(11 - 3)
    assert res.confidence_interval == pytest.approx((np.tanh(z - half), np.tanh(z + half)))
