"""Percent, unanimous and specific agreement."""

import numpy as np
import pytest
from hypothesis import given, settings

from agreement.stats import percent_agreement
from agreement.stats.counts import specific_agreement_from_counts
from agreement.stats.percent import specific_agreement, unanimous_agreement
from tests.agreement.stats.published_data import CONT3X3_ABSTRACTORS, KRIPPENDORFF_2011, table_to_raters
from tests.agreement.stats.strategies import reliability_matrices


def test_percent_agreement_irrcac():
    # irrCAC pa.coeff.raw(cac.raw4raters) 0.8181818; pa2.table(cont3x3abstractors) 0.89
    assert percent_agreement(KRIPPENDORFF_2011) == pytest.approx(0.8181818, abs=5e-8)
    assert percent_agreement(table_to_raters(CONT3X3_ABSTRACTORS)) == pytest.approx(0.89)


def test_unanimous_is_stricter_than_pairwise():
    # Krippendorff's example: units 2, 6 and 8 are not unanimous -> 8 / 11
    assert unanimous_agreement(KRIPPENDORFF_2011) == pytest.approx(8 / 11)
    assert unanimous_agreement(KRIPPENDORFF_2011) < percent_agreement(KRIPPENDORFF_2011)


@settings(max_examples=40, deadline=None)
@given(data=reliability_matrices(min_raters=2, max_raters=2))
def test_two_raters_pairwise_equals_unanimous_equals_share_of_equal_units(data):
    both = ~np.isnan(data).any(axis=0)
    if not both.any():
        return
    share = float((data[0, both] == data[1, both]).mean())
    assert percent_agreement(data) == pytest.approx(share)
    assert unanimous_agreement(data) == pytest.approx(share)


def test_specific_agreement_two_raters_is_2a_over_2a_b_c():
    # 200-comment example: positive 2*90/(2*90+15+25) = 0.818, negative 2*70/(2*70+40) = 0.778
    res = specific_agreement(table_to_raters([[70, 25], [15, 90]]))
    assert res[1.0] == pytest.approx(180 / 220)
    assert res[0.0] == pytest.approx(140 / 180)


def test_specific_agreement_declared_but_unused_category_is_none():
    res = specific_agreement([[1, 2, 2], [1, 2, 1]], categories=[1, 2, 3])
    assert res[3.0] is None
    assert res[1.0] == pytest.approx(2 / 3)


def test_specific_agreement_many_raters():
    # one unit rated (1, 1, 2): each "1" has 1 agreeing partner of 2 -> 2 * (1/2) / 2 ratings
    res = specific_agreement([[1], [1], [2]])
    assert res == {1.0: 0.5, 2.0: 0.0}


def test_specific_agreement_is_uebersax_estimator_when_raters_per_unit_differ():
    # issue 24, point 2: Uebersax (1982) p_s(k) = sum_j n_jk (n_jk - 1) / sum_j n_jk (n_j - 1).
    # Unit 1 rated (1, 1, 2), unit 2 rated (1, 1): category 1 -> (2 + 2) / (2 * 2 + 2 * 1) = 2/3
    # (averaging per rating instead gave 0.75); category 2 -> 0 / (1 * 2) = 0
    res = specific_agreement([[1, 1], [1, 1], [2, np.nan]])
    assert res[1.0] == pytest.approx(2 / 3)
    assert res[2.0] == 0.0


def test_specific_agreement_from_counts_is_the_same_estimator():
    res = specific_agreement_from_counts([[2, 1], [2, 0]], [1, 2])
    assert res == pytest.approx({1.0: 2 / 3, 2.0: 0.0})


@settings(max_examples=60, deadline=None)
@given(data=reliability_matrices(min_raters=2, max_raters=8, kind="likert"))
def test_specific_agreement_equals_counting_ordered_pairs_of_ratings(data):
    # Uebersax's estimator spelled out on random data with missing ratings: over every unit, the
    # ordered pairs of two different raters' ratings that start with k, and how many of them agree
    agreeing, starting = {}, {}
    for column in data.T:
        ratings = column[~np.isnan(column)].tolist()
        for i, x in enumerate(ratings):
            for j, y in enumerate(ratings):
                if i != j:
                    starting[x] = starting.get(x, 0) + 1
                    agreeing[x] = agreeing.get(x, 0) + (x == y)
    if not starting:
        return
    res = specific_agreement(data)
    for k, value in res.items():
        if k in starting:
            assert value == pytest.approx(agreeing[k] / starting[k], abs=1e-12)
        else:
            assert value is None
