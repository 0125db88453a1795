"""Krippendorff's alpha: published values, the ``krippendorff`` package, the many-valued paths."""

import tracemalloc

import krippendorff
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agreement.stats.krippendorff as kripp_module
from agreement.stats import InsufficientDataError, krippendorff_alpha
from agreement.stats.krippendorff import krippendorff_alpha_leave_one_out
from tests.agreement.stats.published_data import (
    DISTRIB_6RATERS,
    FAST_KRIPPENDORFF_DOCTEST,
    KRIPPENDORFF_2011,
    counts_to_reliability_data,
)
from tests.agreement.stats.strategies import reliability_matrices

LEVELS = ("nominal", "ordinal", "interval", "ratio")


@pytest.mark.parametrize(
    ("level", "published"),
    [
        # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C
        ("nominal", 0.743),
        ("ordinal", 0.815),
        ("interval", 0.849),
        ("ratio", 0.797),
    ],
)
def test_krippendorff_2011_example(level, published):
    res = krippendorff_alpha(KRIPPENDORFF_2011, level_of_measurement=level)
    assert round(res.value, 3) == published
    # 11 units rated at least twice (unit 12 has one rating), 40 pairable values, 4 observers
    assert (res.n_units, res.n_pairable, res.n_raters) == (11, 40, 4)
    assert res.value == pytest.approx(1 - res.observed_disagreement / res.expected_disagreement)


def test_krippendorff_2011_nominal_exact():
    # irrCAC krippen.alpha.raw(cac.raw4raters) prints 0.74342; the krippendorff package gives
    # 0.743421052631579
    assert krippendorff_alpha(KRIPPENDORFF_2011).value == pytest.approx(0.743421052631579, abs=1e-12)


@pytest.mark.parametrize(("level", "published"), [("nominal", 0.691358), ("interval", 0.810845)])
def test_fast_krippendorff_doctest_values(level, published):
    # values printed in the krippendorff package's alpha() docstring
    res = krippendorff_alpha(FAST_KRIPPENDORFF_DOCTEST, level_of_measurement=level)
    assert round(res.value, 6) == published


def test_fleiss_distribution_of_six_raters():
    # irrCAC krippen.alpha.dist(distrib.6raters) = 0.4204384 (Gwet's README)
    data = counts_to_reliability_data(DISTRIB_6RATERS)
    assert krippendorff_alpha(data).value == pytest.approx(0.4204384, abs=5e-8)


def test_float_is_the_value():
    res = krippendorff_alpha(KRIPPENDORFF_2011, level_of_measurement="interval")
    assert float(res) == res.value
    assert res.statistic == "krippendorff_alpha" and res.variant == "interval"


def test_value_domain_is_checked_but_does_not_change_alpha():
    full = krippendorff_alpha(KRIPPENDORFF_2011, level_of_measurement="ordinal").value
    declared = krippendorff_alpha(KRIPPENDORFF_2011, level_of_measurement="ordinal", value_domain=range(1, 8))
    assert declared.value == pytest.approx(full, abs=1e-15)
    with pytest.raises(ValueError, match=r"outside value_domain \[1.0, 2.0, 3.0, 4.0\]: \[5.0\]"):
        krippendorff_alpha(KRIPPENDORFF_2011, value_domain=[1, 2, 3, 4])


def test_leave_one_out_matches_alpha_without_the_row():
    res = krippendorff_alpha_leave_one_out(KRIPPENDORFF_2011, level_of_measurement="ordinal")
    for r in range(4):
        expected = krippendorff_alpha(np.delete(KRIPPENDORFF_2011, r, axis=0), level_of_measurement="ordinal")
        assert res.value_without[r] == pytest.approx(expected.value, abs=1e-12)
        assert res.change[r] == pytest.approx(expected.value - res.value, abs=1e-12)
    assert res.reasons == (None, None, None, None)


def test_leave_one_out_with_two_raters_reports_why():
    res = krippendorff_alpha_leave_one_out([[1, 2, 3], [1, 2, 2]])
    assert res.value_without == (None, None)
    assert "no unit is rated by at least two raters" in res.reasons[0]


@pytest.fixture(params=["dense", "many-valued"])
def path(request, monkeypatch):
    """Run a test through the coincidence-matrix path and through the many-valued paths."""
    if request.param == "many-valued":
        monkeypatch.setattr(kripp_module, "_DENSE_MAX_VALUES", 0)
    return request.param


@pytest.mark.parametrize("level", LEVELS)
def test_published_values_on_every_path(path, level):
    expected = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}[level]
    assert round(krippendorff_alpha(KRIPPENDORFF_2011, level_of_measurement=level).value, 3) == expected


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=reliability_matrices(), level=st.sampled_from(LEVELS), many_valued=st.booleans())
def test_matches_krippendorff_package(data, level, many_valued, monkeypatch):
    monkeypatch.setattr(kripp_module, "_DENSE_MAX_VALUES", 0 if many_valued else 64)
    try:
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = krippendorff.alpha(data, level_of_measurement=level)
    except (ValueError, ZeroDivisionError):
        expected = None
    if expected is None or not np.isfinite(expected):
        with pytest.raises(InsufficientDataError):
            krippendorff_alpha(data, level_of_measurement=level)
        return
    assert krippendorff_alpha(data, level_of_measurement=level).value == pytest.approx(expected, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(data=reliability_matrices(max_raters=70, max_units=20, kind="likert"))
def test_many_raters_take_the_nonzero_path(data):
    # more than 64 rows gathers a block with one np.nonzero call instead of a row loop
    if data.shape[0] <= 64:
        data = np.vstack([data, np.full((65 - data.shape[0], data.shape[1]), np.nan)])
    try:
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = krippendorff.alpha(data, level_of_measurement="ordinal")
    except ValueError:
        return
    if np.isfinite(expected):
        assert krippendorff_alpha(data, level_of_measurement="ordinal").value == pytest.approx(expected, abs=1e-9)


def test_many_blocks_equal_one_block(monkeypatch):
    rng = np.random.default_rng(3)
    data = rng.integers(1, 6, (3, 5000)).astype(float)
    data[rng.random(data.shape) < 0.3] = np.nan
    whole = {lvl: krippendorff_alpha(data, level_of_measurement=lvl).value for lvl in LEVELS}
    monkeypatch.setattr("agreement.stats._units._BLOCK_ELEMENTS", 300)
    for lvl in LEVELS:
        assert krippendorff_alpha(data, level_of_measurement=lvl).value == pytest.approx(whole[lvl], abs=1e-12)


def test_continuous_sliders_do_not_build_a_value_matrix():
    # 0-100 sliders with one decimal: ~1000 distinct values. The krippendorff package would
    # allocate units x values x values floats (149 GiB for 20,000 units); we stay small.
    rng = np.random.default_rng(0)
    truth = rng.uniform(0, 100, 20_000)
    data = np.clip(truth + rng.normal(0, 10, (3, truth.size)), 0, 100).round(1)
    data[rng.random(data.shape) < 0.05] = np.nan
    for level in LEVELS:
        tracemalloc.start()
        value = krippendorff_alpha(data, level_of_measurement=level).value
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        # nominal alpha treats 41.3 and 41.4 as different categories, so it is near 0
        assert (0.5 < value < 1.0) if level != "nominal" else (-0.1 < value < 0.2)
        assert peak < 40e6, (level, peak)


def test_continuous_values_agree_with_the_package_on_a_small_sample():
    rng = np.random.default_rng(5)
    data = rng.uniform(0, 100, (4, 60)).round(2)
    data[rng.random(data.shape) < 0.2] = np.nan
    for level in LEVELS:
        assert krippendorff_alpha(data, level_of_measurement=level).value == pytest.approx(
            krippendorff.alpha(data, level_of_measurement=level), abs=1e-9
        )


def test_large_offsets_keep_precision():
    # interval alpha is shift invariant; the moment path must not lose it to cancellation
    rng = np.random.default_rng(2)
    data = rng.integers(1, 6, (3, 200)).astype(float)
    base = krippendorff_alpha(data, level_of_measurement="interval").value
    shifted = krippendorff_alpha(data + 1e9, level_of_measurement="interval").value
    assert shifted == pytest.approx(base, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    n_raters=st.integers(3, 8),
    n_units=st.integers(2, 30),
    level=st.sampled_from(["nominal", "ordinal", "interval", "ratio"]),
    continuous=st.booleans(),
)
def test_one_pass_leave_one_out_equals_deleting_each_row(seed, n_raters, n_units, level, continuous):
    rng = np.random.default_rng(seed)
    data = (
        np.round(rng.uniform(0, 100, (n_raters, n_units)), 1)
        if continuous
        else rng.integers(1, 6, (n_raters, n_units)).astype(float)
    )
    data[rng.random(data.shape) < 0.4] = np.nan
    try:
        res = krippendorff_alpha_leave_one_out(data, level_of_measurement=level)
    except InsufficientDataError:
        return
    for r in range(n_raters):
        try:
            expected = krippendorff_alpha(np.delete(data, r, axis=0), level_of_measurement=level).value
        except InsufficientDataError:
            expected = None
        if expected is None:
            assert res.value_without[r] is None and res.reasons[r]
        else:
            assert res.value_without[r] == pytest.approx(expected, abs=1e-9)
