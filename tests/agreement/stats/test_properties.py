"""Properties every coefficient must have: invariance to order, perfect agreement gives 1."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agreement.stats import (
    InsufficientDataError,
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    icc,
    krippendorff_alpha,
    percent_agreement,
    unit_category_counts,
)
from agreement.stats.kappa import brennan_prediger_kappa
from tests.agreement.stats.strategies import reliability_matrices

STATISTICS = {
    "alpha nominal": lambda d: krippendorff_alpha(d).value,
    "alpha ordinal": lambda d: krippendorff_alpha(d, level_of_measurement="ordinal").value,
    "alpha interval": lambda d: krippendorff_alpha(d, level_of_measurement="interval").value,
    "alpha ratio": lambda d: krippendorff_alpha(d, level_of_measurement="ratio").value,
    "ac1": lambda d: gwet_ac1(d).value,
    "ac2": lambda d: gwet_ac2(d).value,
    "brennan-prediger": lambda d: brennan_prediger_kappa(d).value,
    "fleiss": lambda d: fleiss_kappa(unit_category_counts(d).counts).value,
    "percent": percent_agreement,
}


@settings(max_examples=50, deadline=None)
@given(
    data=reliability_matrices(max_raters=8),
    name=st.sampled_from(sorted(STATISTICS)),
    seed=st.integers(0, 999),
)
def test_invariant_to_rater_and_unit_order(data, name, seed):
    statistic = STATISTICS[name]
    rng = np.random.default_rng(seed)
    shuffled = data[rng.permutation(data.shape[0])][:, rng.permutation(data.shape[1])]
    try:
        expected = statistic(data)
    except InsufficientDataError:
        with pytest.raises(InsufficientDataError):
            statistic(shuffled)
        return
    assert statistic(shuffled) == pytest.approx(expected, abs=1e-10)


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_raters=st.integers(2, 20),
    n_units=st.integers(2, 50),
    name=st.sampled_from(sorted(STATISTICS)),
)
def test_perfect_agreement_gives_one(seed, n_raters, n_units, name):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n_units).astype(float)
    truth[:2] = [1, 2]  # at least two values in use
    data = np.tile(truth, (n_raters, 1))
    data[rng.random(data.shape) < 0.3] = np.nan
    data[:2, :2] = truth[:2]  # the two values stay pairable
    assert STATISTICS[name](data) == pytest.approx(1.0, abs=1e-12)


def test_icc_perfect_agreement_and_rater_order():
    rng = np.random.default_rng(0)
    truth = rng.normal(size=30)
    data = np.tile(truth, (4, 1))
    for model in ("ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)"):
        assert icc(data, model=model).value == pytest.approx(1.0)
        noisy = data + rng.normal(size=data.shape)
        assert icc(noisy[::-1], model=model).value == pytest.approx(icc(noisy, model=model).value)


@settings(max_examples=30, deadline=None)
@given(data=reliability_matrices(kind="continuous"), shift=st.floats(-50, 50), scale=st.floats(0.1, 10))
def test_interval_alpha_is_invariant_to_linear_rescaling(data, shift, scale):
    try:
        expected = krippendorff_alpha(data, level_of_measurement="interval").value
    except InsufficientDataError:
        return
    assert krippendorff_alpha(data * scale + shift, level_of_measurement="interval").value == pytest.approx(
        expected, abs=1e-9
    )
