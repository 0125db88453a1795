"""Per-rater z-scores against scipy.stats.zscore on random data."""

import numpy as np
import pytest
from scipy import stats

from agreement.stats import krippendorff_alpha
from agreement.stats.normalisation import rater_zscores


def test_each_rater_matches_scipy_zscore_of_their_own_ratings():
    rng = np.random.default_rng(3)
    data = rng.normal(50, 20, size=(6, 40)) * rng.uniform(0.2, 3, size=(6, 1))
    data[rng.random(data.shape) < 0.3] = np.nan
    z = rater_zscores(data)
    for row, expected in zip(z, data, strict=True):
        rated = ~np.isnan(expected)
        np.testing.assert_allclose(row[rated], stats.zscore(expected[rated]), rtol=1e-12)
        assert np.isnan(row[~rated]).all()


def test_a_constant_rater_and_a_single_rating_become_zeros():
    z = rater_zscores([[3, 3, 3], [np.nan, 7, np.nan], [1, 2, 3]])
    assert z[0].tolist() == [0.0, 0.0, 0.0]
    assert z[1, 1] == 0.0 and np.isnan(z[1, [0, 2]]).all()


def test_raters_using_the_scale_differently_agree_after_normalising():
    # the second rater scores every unit ten times the first, plus 100: no agreement on the raw scores,
    # perfect agreement on the z-scores
    first = np.array([1.0, 4, 2, 5, 3])
    data = np.vstack([first, 10 * first + 100])
    assert krippendorff_alpha(data, level_of_measurement="interval").value < 0
    assert krippendorff_alpha(rater_zscores(data), level_of_measurement="interval").value == pytest.approx(1.0)
