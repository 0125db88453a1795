"""Units needed for a target confidence-interval width."""

import numpy as np
import pytest

from agreement.stats.counts import cohen_kappa_from_table
from agreement.stats.study_design import units_for_ci_width


def test_balanced_binary_kappa_matches_cohen_1960_approximation():
    # p_o = 0.8, p_e = 0.5: var = 0.8 * 0.2 / 0.25; n = (2 * 1.96 * 0.8 / 0.2)^2 = 245.9 -> 246
    res = units_for_ci_width(expected_value=0.6, ci_width=0.2)
    assert int(res) == 246
    assert res.unit_standard_deviation == pytest.approx(0.8)
    assert res.method == "asymptotic"


def test_closed_form_uses_the_standard_error_of_cohen_kappa():
    p = np.array([0.7, 0.2, 0.1])
    kappa = 0.5
    table = (1 - kappa) * np.outer(p, p) + kappa * np.diag(p)
    res = units_for_ci_width(expected_value=kappa, ci_width=0.1, prevalence=p)
    at_n = cohen_kappa_from_table(table * res.n_units)
    assert at_n.value == pytest.approx(kappa)
    assert 2 * 1.959963984540054 * at_n.standard_error == pytest.approx(0.1, rel=0.01)


def test_skewed_prevalence_needs_more_units():
    balanced = units_for_ci_width(expected_value=0.6, ci_width=0.2).n_units
    skewed = units_for_ci_width(expected_value=0.6, ci_width=0.2, prevalence=[0.9, 0.1]).n_units
    assert skewed > balanced


def test_alpha_simulation_is_close_to_the_kappa_closed_form():
    kappa = units_for_ci_width(expected_value=0.6, ci_width=0.2).n_units
    alpha = units_for_ci_width(
        expected_value=0.6,
        ci_width=0.2,
        statistic="krippendorff_alpha",
        rng=np.random.default_rng(0),
        n_simulations=150,
    )
    assert alpha.method == "simulation"
    assert alpha.n_units == pytest.approx(kappa, rel=0.25)
    three = units_for_ci_width(
        expected_value=0.6, ci_width=0.2, statistic="krippendorff_alpha", n_raters=3, rng=0, n_simulations=150
    )
    assert three.n_units < alpha.n_units


def test_inputs_are_checked():
    with pytest.raises(ValueError, match=r"expected_value must be in \[0.0, 1.0\)"):
        units_for_ci_width(expected_value=1.2, ci_width=0.2)
    with pytest.raises(ValueError, match=r"ci_width must be in \(0.0, 2.0\]"):
        units_for_ci_width(expected_value=0.5, ci_width=0)
    with pytest.raises(ValueError, match="rng is required for krippendorff_alpha"):
        units_for_ci_width(expected_value=0.5, ci_width=0.2, statistic="krippendorff_alpha")
    with pytest.raises(ValueError, match="valid choices are 'cohen_kappa', 'krippendorff_alpha'"):
        units_for_ci_width(expected_value=0.5, ci_width=0.2, statistic="fleiss")
