"""Correlations at system, item and global level against scipy, with published values."""

import numpy as np
import pytest
from scipy import stats

from evaluation.stats import KENDALL_VARIANT, InsufficientDataError, correlation, correlation_rows

SCIPY = {
    "pearson": stats.pearsonr,
    "spearman": stats.spearmanr,
    "kendall": lambda x, y: stats.kendalltau(x, y, variant="b"),
}


def test_published_examples():
    # scipy.stats.kendalltau docs: tau-b = -0.47140452079103173
    assert correlation_rows([[12, 2, 1, 12, 2]], [[1, 4, 7, 1, 0]], method="kendall")[0] == pytest.approx(
        -0.47140452079103173, abs=1e-12
    )
    # Wikipedia, "Spearman's rank correlation coefficient", IQ vs TV hours: rho = -29/165
    iq = [[106, 100, 86, 101, 99, 103, 97, 113, 112, 110]]
    tv = [[7, 27, 2, 50, 28, 29, 20, 12, 6, 17]]
    assert correlation_rows(iq, tv, method="spearman")[0] == pytest.approx(-29 / 165, abs=1e-12)
    assert KENDALL_VARIANT == "tau-b"


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
@pytest.mark.parametrize("columns", [10, 900])  # vectorised pairs, and scipy's algorithm for long rows
def test_rows_match_scipy_with_ties_and_missing_values(method, columns):
    rng = np.random.default_rng(columns)
    x = rng.integers(1, 6, (6, columns)).astype(float)
    y = x + rng.integers(-2, 3, (6, columns))
    x[rng.random(x.shape) < 0.1] = np.nan
    y[rng.random(y.shape) < 0.1] = np.nan
    mine = correlation_rows(x, y, method=method)
    for r in range(6):
        ok = ~np.isnan(x[r]) & ~np.isnan(y[r])
        assert mine[r] == pytest.approx(SCIPY[method](x[r, ok], y[r, ok]).statistic, abs=1e-12)


def test_constant_row_is_undefined():
    assert np.isnan(correlation_rows([[1, 1, 1]], [[1, 2, 3]], method="pearson")[0])
    assert np.isnan(correlation_rows([[1, 1, 1]], [[1, 2, 3]], method="kendall")[0])


def matrices(seed, items=40, systems=6):
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=systems)
    human = quality + rng.normal(size=(items, systems))
    metric = 0.5 * human + rng.normal(size=(items, systems))
    human[rng.random(human.shape) < 0.05] = np.nan
    return human, metric


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_levels_match_a_direct_scipy_computation(method):
    human, metric = matrices(1)
    ok = ~np.isnan(human)
    sys_h = np.array([human[ok[:, s], s].mean() for s in range(6)])
    sys_m = np.array([metric[ok[:, s], s].mean() for s in range(6)])
    expected = {
        "system": SCIPY[method](sys_h, sys_m).statistic,
        "item": np.mean([SCIPY[method](human[i, ok[i]], metric[i, ok[i]]).statistic for i in range(40)]),
        "global": SCIPY[method](human[ok], metric[ok]).statistic,
    }
    for level, value in expected.items():
        r = correlation(human, metric, method=method, level=level, n_resamples=0)
        assert r.value == pytest.approx(value, abs=1e-12), level
        assert r.level == level and f"({level} level)" in r.label


@pytest.mark.parametrize("level", ["system", "item", "global"])
@pytest.mark.parametrize("method", ["pearson", "kendall"])
def test_bootstrap_interval_covers_the_value_and_equals_a_materialised_resample(level, method):
    human, metric = matrices(2)
    r = correlation(human, metric, method=method, level=level, n_resamples=200, rng=np.random.default_rng(0))
    assert r.ci_low <= r.value <= r.ci_high
    # the first bootstrap sample, drawn again and computed by materialising the drawn items
    from evaluation.stats._resampling import bootstrap_counts

    w = next(bootstrap_counts(40, 1, np.random.default_rng(0)))[0].astype(int)
    rows = np.repeat(np.arange(40), w)
    again = correlation(human[rows], metric[rows], method=method, level=level, n_resamples=0).value
    from evaluation.stats.correlation import _global_level, _system_level

    if level == "system":
        assert _system_level(human, metric, method, w[None, :].astype(float))[0][0] == pytest.approx(again)
    elif level == "global":
        assert _global_level(human, metric, method, w[None, :].astype(float))[0] == pytest.approx(again)


def test_undefined_correlation_says_why():
    with pytest.raises(InsufficientDataError, match="system-level pearson correlation is undefined"):
        correlation([[1.0, 1.0]], [[2.0, 3.0]], level="system", n_resamples=0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "tau"}, "'pearson', 'spearman', 'kendall'"),
        ({"level": "corpus"}, "'system', 'item', 'global'"),
    ],
)
def test_input_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        correlation([[1, 2]], [[1, 2]], n_resamples=0, **kwargs)
