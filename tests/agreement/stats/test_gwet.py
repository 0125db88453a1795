"""Gwet's AC1/AC2 against Gwet's own published outputs (irrCAC README)."""

import numpy as np
import pytest

from agreement.stats import cohen_kappa, gwet_ac1, gwet_ac2, unit_category_counts
from agreement.stats.counts import gwet_from_counts
from tests.agreement.stats.published_data import (
    CONT3X3_ABSTRACTORS,
    DISTRIB_6RATERS,
    KRIPPENDORFF_2011,
    UNEVEN_CODES,
    UNEVEN_CODES_IRRCAC_AC2,
    counts_to_reliability_data,
    table_to_raters,
)


def test_ac1_irrcac_raw4raters():
    # gwet.ac1.raw(cac.raw4raters): pa 0.8181818, pe 0.1903212, AC1 0.77544, SE 0.14295,
    # CI (0.461, 1), p 0.000208721 (Student t, 11 df)
    res = gwet_ac1(KRIPPENDORFF_2011)
    assert res.observed_agreement == pytest.approx(0.8181818, abs=5e-8)
    assert res.expected_agreement == pytest.approx(0.1903212, abs=5e-8)
    assert (round(res.value, 5), round(res.standard_error, 5)) == (0.77544, 0.14295)
    assert round(res.confidence_interval[0], 3) == 0.461 and res.confidence_interval[1] == 1.0
    assert res.p_value == pytest.approx(0.000208721, abs=5e-10)
    assert (res.n_units, res.n_raters) == (11, 4)


def test_ac1_irrcac_distribution_of_six_raters():
    # gwet.ac1.dist(distrib.6raters): 0.4448007, SE 0.08418757, CI (0.264, 0.625),
    # p 0.0001155927, pa 0.5511111, pe 0.1914815
    res = gwet_ac1(counts_to_reliability_data(DISTRIB_6RATERS), categories=range(5))
    assert res.value == pytest.approx(0.4448007, abs=5e-8)
    assert res.standard_error == pytest.approx(0.08418757, abs=5e-9)
    assert [round(x, 3) for x in res.confidence_interval] == [0.264, 0.625]
    assert res.p_value == pytest.approx(0.0001155927, abs=5e-11)
    assert res.expected_agreement == pytest.approx(0.1914815, abs=5e-8)


def test_ac1_irrcac_two_raters_table():
    # gwet.ac1.table(cont3x3abstractors): 0.8493305 (the table formula's SE differs slightly)
    a, b = table_to_raters(CONT3X3_ABSTRACTORS)
    assert gwet_ac1([a, b]).value == pytest.approx(0.8493305, abs=5e-8)


def test_ac2_identity_is_ac1_and_quadratic_rewards_near_misses():
    ac1 = gwet_ac1(KRIPPENDORFF_2011, categories=range(1, 6))
    assert gwet_ac2(KRIPPENDORFF_2011, weights="identity", categories=range(1, 6)).value == ac1.value
    for weights in ("linear", "quadratic", "ordinal", "radical"):
        assert gwet_ac2(KRIPPENDORFF_2011, weights=weights, categories=range(1, 6)).value > ac1.value


def test_ac2_explicit_weights_equal_named_ones():
    k = np.arange(5.0)
    quadratic = 1 - (np.subtract.outer(k, k) / 4) ** 2
    named = gwet_ac2(KRIPPENDORFF_2011, weights="quadratic", categories=range(1, 6))
    explicit = gwet_ac2(KRIPPENDORFF_2011, weights=quadratic, categories=range(1, 6))
    assert explicit.value == pytest.approx(named.value, abs=1e-15)
    assert explicit.variant == "custom"


def test_ac1_depends_on_declared_categories():
    # unused declared categories lower p_e = sum pi(1 - pi) / (q - 1)
    observed = gwet_ac1(KRIPPENDORFF_2011).value
    declared = gwet_ac1(KRIPPENDORFF_2011, categories=range(1, 8)).value
    assert declared > observed


def test_ac1_resists_the_kappa_paradox():
    # 180 both negative, 5 both positive, 10 and 5 split: kappa ~0.36, AC1 ~0.92
    a, b = table_to_raters([[180, 5], [10, 5]])
    assert round(cohen_kappa(a, b).value, 2) == 0.36
    assert gwet_ac1([a, b]).value > 0.9


def test_ac1_with_declared_binary_scale_and_no_variation_is_one():
    # every rater says "no": AC1 is defined (p_e = 0) and equals 1, as in the HANNA user study
    assert gwet_ac1(np.zeros((3, 10)), categories=[0, 1]).value == 1.0


# issue 24, point 7: weights on category values (Gwet, irrCAC) beside weights on positions
@pytest.mark.parametrize("weights", ["linear", "quadratic", "radical", "ordinal"])
def test_ac2_value_weights_reproduce_irrcac_on_unevenly_spaced_codes(weights):
    value, se, pa, pe = UNEVEN_CODES_IRRCAC_AC2[weights]
    res = gwet_ac2(UNEVEN_CODES, weights=weights, categories=[0, 1, 2, 5], weight_basis="value")
    assert (round(res.value, 5), round(res.standard_error, 5)) == (value, se)
    assert (round(res.observed_agreement, 5), round(res.expected_agreement, 5)) == (pa, pe)
    assert res.variant == (weights if weights == "ordinal" else f"{weights}, on category values")


@pytest.mark.parametrize("weights", ["linear", "quadratic", "radical"])
def test_ac2_position_weights_differ_only_for_unevenly_spaced_codes(weights):
    positions = gwet_ac2(UNEVEN_CODES, weights=weights, categories=[0, 1, 2, 5])
    assert positions.variant == f"{weights}, on category positions"
    assert round(positions.value, 5) != UNEVEN_CODES_IRRCAC_AC2[weights][0]
    even = np.where(UNEVEN_CODES == 5, 3, UNEVEN_CODES)  # codes 0..3: positions and values agree
    by_value = gwet_ac2(even, weights=weights, categories=[0, 1, 2, 3], weight_basis="value")
    assert by_value.value == pytest.approx(gwet_ac2(even, weights=weights, categories=[0, 1, 2, 3]).value)


def test_ac2_value_weights_from_counts_equal_the_matrix_path():
    counts = unit_category_counts(UNEVEN_CODES, categories=[0, 1, 2, 5]).counts
    fast = gwet_from_counts(counts, n_raters=4, weights="quadratic", categories=[0, 1, 2, 5], weight_basis="value")
    slow = gwet_ac2(UNEVEN_CODES, weights="quadratic", categories=[0, 1, 2, 5], weight_basis="value")
    assert fast == slow


def test_ac2_weight_basis_is_checked():
    with pytest.raises(ValueError, match="unknown weight_basis 'rank'; valid choices are 'position', 'value'"):
        gwet_ac2(UNEVEN_CODES, weight_basis="rank")
    with pytest.raises(ValueError, match="weight_basis='value' needs the categories"):
        gwet_from_counts(np.ones((3, 2)), n_raters=2, weights="linear", weight_basis="value")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weights", ["linear", "quadratic", "radical"])
def test_ac2_value_weights_match_irrcac_on_random_data_with_missing_ratings(seed, weights):
    # irrCAC pins scipy==1.12 (the project needs >= 1.13), so `make test` installs it with --no-deps
    import irrCAC.raw as irrcac
    import pandas as pd

    rng = np.random.default_rng(seed)
    codes = np.array([0.0, 1.0, 3.0, 4.0, 10.0])
    data = rng.choice(codes, size=(int(rng.integers(2, 7)), int(rng.integers(5, 60))))
    data[rng.random(data.shape) < 0.3] = np.nan
    data = data[:, (~np.isnan(data)).sum(axis=0) >= 1]
    theirs = irrcac.CAC(pd.DataFrame(data.T), weights=weights, categories=codes.tolist()).gwet()["est"]
    ours = gwet_ac2(data, weights=weights, categories=codes, weight_basis="value")
    assert ours.value == pytest.approx(theirs["coefficient_value"], abs=5e-6)  # irrCAC prints 5 decimals
    assert ours.standard_error == pytest.approx(theirs["se"], abs=5e-6)
