"""Prevalence and bias indices and PABAK (Byrt, Bishop & Carlin 1993)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agreement.stats import cohen_kappa
from agreement.stats.kappa import brennan_prediger_kappa
from agreement.stats.prevalence import bias_index, pabak, prevalence_index
from tests.agreement.stats.published_data import table_to_raters


def test_paradox_example():
    # 180 both negative, 5 both positive, 10 and 5 split: PI (5 - 180)/200, BI (10 - 5)/200,
    # PABAK 2 * 0.925 - 1
    a, b = table_to_raters([[180, 5], [10, 5]])
    assert prevalence_index(a, b, positive=1) == pytest.approx(-0.875)
    assert bias_index(a, b, positive=1) == pytest.approx(0.025)
    assert pabak(a, b) == pytest.approx(0.85)


@settings(max_examples=50, deadline=None)
@given(cells=st.lists(st.integers(0, 60), min_size=4, max_size=4))
def test_byrt_identity_links_kappa_pabak_pi_bi(cells):
    # Byrt et al. (1993): kappa = (PABAK - PI^2 + BI^2) / (1 - PI^2 + BI^2) for a 2x2 table
    table = np.array(cells).reshape(2, 2)
    a, b = table_to_raters(table)
    if a.size == 0 or np.unique(np.r_[a, b]).size < 2:
        return
    pi, bi, pab = prevalence_index(a, b, positive=1), bias_index(a, b, positive=1), pabak(a, b)
    assert cohen_kappa(a, b).value == pytest.approx((pab - pi**2 + bi**2) / (1 - pi**2 + bi**2), abs=1e-12)


def test_pabak_is_brennan_prediger_for_two_raters():
    a, b = table_to_raters([[20, 3, 1], [2, 15, 4], [0, 5, 30]])
    assert pabak(a, b) == pytest.approx(brennan_prediger_kappa([a, b]).value)
    assert pabak(a, b, categories=[0, 1, 2, 3]) == pytest.approx(
        brennan_prediger_kappa([a, b], categories=[0, 1, 2, 3]).value
    )
