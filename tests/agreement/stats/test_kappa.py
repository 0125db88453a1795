"""Cohen's, Fleiss' and Brennan-Prediger's kappa against published printouts and other libraries."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats import inter_rater

from agreement.stats import InsufficientDataError, cohen_kappa, fleiss_kappa, krippendorff_alpha, unit_category_counts
from agreement.stats.counts import cohen_kappa_from_table
from agreement.stats.kappa import brennan_prediger_kappa, pairwise_cohen_kappa
from tests.agreement.stats.published_data import (
    ANXIETY,
    CONT3X3_ABSTRACTORS,
    DIAGNOSES,
    DISTRIB_6RATERS,
    FLEISS_WIKIPEDIA,
    KRIPPENDORFF_2011,
    SAS_TABLE10,
    counts_to_reliability_data,
    table_to_raters,
)
from tests.agreement.stats.strategies import reliability_matrices

# --- Cohen's kappa -------------------------------------------------------------------------


def test_two_rater_200_comment_example():
    # 90 both yes, 15 A-only, 25 B-only, 70 both no: p_o = 0.80, p_e = 0.50375, kappa = 0.597
    a, b = table_to_raters([[70, 25], [15, 90]])
    res = cohen_kappa(a, b)
    assert res.observed_agreement == pytest.approx(0.80)
    assert res.expected_agreement == pytest.approx(0.50375)
    assert round(res.value, 2) == 0.60
    assert (res.n_units, res.n_raters) == (200, 2)


def test_kappa_paradox_example():
    # 180 both negative, 5 both positive, 10 and 5 split: agreement 0.925 but kappa ~0.36
    a, b = table_to_raters([[180, 5], [10, 5]])
    res = cohen_kappa(a, b)
    assert res.observed_agreement == pytest.approx(0.925)
    assert res.expected_agreement == pytest.approx(0.8825)
    assert round(res.value, 2) == 0.36


def test_sas_simple_kappa_printout():
    # SAS PROC FREQ (statsmodels test_inter_rater.py TestUnweightedCohens)
    res = cohen_kappa_from_table(SAS_TABLE10)
    assert res.value == pytest.approx(0.4842, abs=5e-5)
    assert res.standard_error == pytest.approx(0.1380, abs=5e-5)
    assert res.confidence_interval == pytest.approx((0.2137, 0.7547), abs=5e-5)
    assert res.value / res.test_statistic == pytest.approx(0.1484, abs=5e-5)  # ASE under H0
    assert res.test_statistic == pytest.approx(3.2626, abs=5e-5)
    assert res.p_value == pytest.approx(0.0011, abs=5e-5)


def test_sas_weighted_kappa_printout():
    # SAS PROC FREQ weighted kappa, Cicchetti-Allison (linear) weights (TestWeightedCohens)
    res = cohen_kappa_from_table(SAS_TABLE10, weights="linear")
    assert res.value == pytest.approx(0.4701, abs=5e-5)
    assert res.standard_error == pytest.approx(0.1457, abs=5e-5)
    assert res.confidence_interval == pytest.approx((0.1845, 0.7558), abs=5e-5)
    assert res.value / res.test_statistic == pytest.approx(0.1426, abs=5e-5)
    assert res.test_statistic == pytest.approx(3.2971, abs=5e-5)
    assert res.p_value == pytest.approx(0.0010, abs=5e-5)


@pytest.mark.parametrize(
    ("weights", "kappa", "z", "p"),
    [
        # R irr::kappa2(anxiety[, 2:3], ...), as pinned in statsmodels' test_cohens_kappa_irr
        (None, -0.006289308, -0.0604067, 0.9518317),
        ("linear", 0.1459075, 1.282472, 0.1996772),
        ("quadratic", 0.2520325, 1.437451, 0.1505898),
    ],
)
def test_r_irr_kappa2_anxiety(weights, kappa, z, p):
    # irr drops the unused level 4 and weights by position: our default (observed categories)
    res = cohen_kappa(ANXIETY[1], ANXIETY[2], weights=weights)
    assert res.value == pytest.approx(kappa, abs=1e-7)
    assert res.test_statistic == pytest.approx(z, abs=1e-5)
    assert res.p_value == pytest.approx(p, abs=1e-6)


def test_declared_categories_change_weighted_kappa():
    # with the declared scale 1..6, level 4 counts in the distances: a different weighted kappa
    observed = cohen_kappa(ANXIETY[1], ANXIETY[2], weights="linear").value
    declared = cohen_kappa(ANXIETY[1], ANXIETY[2], weights="linear", categories=[1, 2, 3, 4, 5, 6]).value
    assert declared != pytest.approx(observed, abs=1e-3)
    # unweighted kappa does not depend on unused categories
    assert cohen_kappa(ANXIETY[1], ANXIETY[2], categories=range(1, 7)).value == pytest.approx(
        cohen_kappa(ANXIETY[1], ANXIETY[2]).value, abs=1e-15
    )


def test_irrcac_cont3x3_abstractors():
    # Gwet's irrCAC README: kappa2.table(cont3x3abstractors) 0.7964094, SE 0.05891072
    res = cohen_kappa_from_table(CONT3X3_ABSTRACTORS)
    assert res.value == pytest.approx(0.7964094, abs=5e-8)
    assert res.standard_error == pytest.approx(0.05891072, abs=5e-9)


def test_table_and_vectors_agree():
    a, b = table_to_raters(SAS_TABLE10)
    for weights in (None, "linear", "quadratic"):
        assert cohen_kappa(a, b, weights=weights) == cohen_kappa_from_table(SAS_TABLE10, weights=weights)


def test_missing_ratings_drop_the_unit():
    a = [1, 2, np.nan, 2, 1, 3]
    b = [1, 2, 3, np.nan, 2, 3]
    assert cohen_kappa(a, b) == cohen_kappa([1, 2, 1, 3], [1, 2, 2, 3])


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(5, 80),
    k=st.integers(2, 6),
    weights=st.sampled_from([None, "linear", "quadratic"]),
)
def test_matches_statsmodels_and_scikit_learn(seed, n, k, weights):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, k, n)
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, k, n))
    cats = np.arange(k)
    if np.unique(np.r_[a, b]).size == 1:
        with pytest.raises(InsufficientDataError, match="a single category is in use"):
            cohen_kappa(a, b, weights=weights, categories=cats)
        return
    ours = cohen_kappa(a, b, weights=weights, categories=cats)
    table = np.bincount(a * k + b, minlength=k * k).reshape(k, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        theirs = inter_rater.cohens_kappa(table, wt=weights) if weights else inter_rater.cohens_kappa(table)
    assert ours.value == pytest.approx(theirs.kappa, abs=1e-10)
    if np.unique(a).size == 1 or np.unique(b).size == 1:  # a constant rater: no standard error (point 3)
        assert ours.standard_error is None and ours.interval_reason is not None
    elif np.isfinite(theirs.std_kappa):
        # near perfect agreement the variance is ~1e-16 of round-off on either side, its root ~1e-8
        assert ours.standard_error == pytest.approx(theirs.std_kappa, abs=1e-7)
    else:  # perfect agreement: the variance is 0 up to round-off (statsmodels takes sqrt of -1e-17)
        assert ours.standard_error == pytest.approx(0.0, abs=1e-6)
    if theirs.std_kappa0 > 1e-6:  # a rater who uses one category has no null variance
        assert ours.test_statistic == pytest.approx(theirs.kappa / theirs.std_kappa0, abs=1e-8)
    assert ours.value == pytest.approx(cohen_kappa_score(a, b, labels=cats, weights=weights), abs=1e-10)


def test_pairwise_cohen_kappa_reports_pairs_without_overlap():
    data = [[1, 2, 1, np.nan], [1, 2, 2, np.nan], [np.nan, np.nan, np.nan, 1]]
    pairs = pairwise_cohen_kappa(data)
    assert [(p.rater_a, p.rater_b) for p in pairs] == [(0, 1), (0, 2), (1, 2)]
    assert pairs[0].result.value == pytest.approx(cohen_kappa(data[0], data[1], categories=[1, 2]).value)
    assert pairs[1].result is None and pairs[1].n_units == 0
    assert pairs[1].reason == "no unit is rated by both raters"


# --- Fleiss' kappa ---------------------------------------------------------------------------


def test_fleiss_wikipedia_example():
    # Fleiss (1971) / Wikipedia: 0.210 (statsmodels test_fleiss_kappa)
    res = fleiss_kappa(FLEISS_WIKIPEDIA)
    assert round(res.value, 3) == 0.210
    assert res.n_raters == 14 and res.n_units == 10


def test_fleiss_diagnoses_r_irr():
    # R irr::kappam.fleiss(diagnoses): Kappa = 0.4302445, z = 17.65183, p-value = 0
    counts = unit_category_counts(DIAGNOSES).counts
    res = fleiss_kappa(counts, categories=[1, 2, 3, 4, 5])
    assert res.value == pytest.approx(0.4302445, abs=5e-8)
    assert res.test_statistic == pytest.approx(17.65183, abs=5e-6)
    assert res.p_value < 1e-60
    # kappam.fleiss(diagnoses, detail = TRUE)
    assert {k: round(v, 3) for k, v in res.per_category.items()} == {
        1: 0.245,
        2: 0.245,
        3: 0.520,
        4: 0.471,
        5: 0.566,
    }
    assert {k: round(v, 3) for k, v in res.per_category_z.items()} == {
        1: 5.192,
        2: 5.192,
        3: 11.031,
        4: 9.994,
        5: 12.009,
    }


def test_fleiss_irrcac_distribution_of_six_raters():
    # Gwet's irrCAC README, fleiss.kappa.dist(distrib.6raters)
    res = fleiss_kappa(DISTRIB_6RATERS)
    assert res.value == pytest.approx(0.4139265, abs=5e-8)
    assert res.standard_error == pytest.approx(0.08119291, abs=5e-9)
    assert res.observed_agreement == pytest.approx(0.5511111, abs=5e-8)
    assert res.expected_agreement == pytest.approx(0.2340741, abs=5e-8)


def test_fleiss_varying_raters_irrcac_raw():
    # irrCAC fleiss.kappa.raw(cac.raw4raters): 0.76117, SE 0.15302, CI (0.424, 1), p 0.000419173;
    # units have 1 to 4 raters (statsmodels' fleiss_kappa assumes a constant number)
    counts = unit_category_counts(KRIPPENDORFF_2011).counts
    res = fleiss_kappa(counts)
    assert round(res.value, 5) == 0.76117
    assert round(res.standard_error, 5) == 0.15302
    assert round(res.confidence_interval[0], 3) == 0.424 and res.confidence_interval[1] == 1.0
    assert res.p_value == pytest.approx(0.000419173, abs=5e-10)


@settings(max_examples=50, deadline=None)
@given(data=reliability_matrices(min_raters=2, max_raters=20, kind="likert", min_missing=0.0))
def test_fleiss_matches_statsmodels_with_constant_raters(data):
    data = np.nan_to_num(data, nan=3.0)  # statsmodels needs every unit rated by everyone
    counts = unit_category_counts(data, categories=[1, 2, 3, 4, 5]).counts
    if (counts.sum(axis=0) == counts.sum()).any():
        return  # a single category: undefined (statsmodels returns NaN)
    assert fleiss_kappa(counts).value == pytest.approx(inter_rater.fleiss_kappa(counts), abs=1e-10)


def test_fleiss_per_category_matches_collapsed_table():
    res = fleiss_kappa(FLEISS_WIKIPEDIA)
    for k in range(5):
        collapsed = np.column_stack([FLEISS_WIKIPEDIA[:, k], 14 - FLEISS_WIKIPEDIA[:, k]])
        assert res.per_category[k] == pytest.approx(fleiss_kappa(collapsed).value, abs=1e-12)


def test_fleiss_unused_category_has_no_kappa():
    res = fleiss_kappa([[2, 0, 1], [3, 0, 0], [0, 0, 3]], categories=["a", "b", "c"])
    assert res.per_category["b"] is None and res.per_category_z["b"] is None


def test_fleiss_equals_alpha_asymptotically_close():
    # with constant raters Fleiss' kappa and nominal alpha differ only by a small-sample factor
    counts = unit_category_counts(DIAGNOSES).counts
    alpha = krippendorff_alpha(DIAGNOSES).value
    assert fleiss_kappa(counts).value == pytest.approx(alpha, abs=0.02)


# --- Brennan-Prediger --------------------------------------------------------------------------


def test_brennan_prediger_irrcac():
    # irrCAC: bp.coeff.raw(cac.raw4raters) 0.77273 (SE 0.14472);
    # bp.coeff.dist(distrib.6raters) 0.4388889 (SE 0.08312142); bp2.table(cont3x3) 0.835
    res = brennan_prediger_kappa(KRIPPENDORFF_2011)
    assert (round(res.value, 5), round(res.standard_error, 5)) == (0.77273, 0.14472)
    res = brennan_prediger_kappa(counts_to_reliability_data(DISTRIB_6RATERS), categories=range(5))
    assert res.value == pytest.approx(0.4388889, abs=5e-8)
    assert res.standard_error == pytest.approx(0.08312142, abs=5e-9)
    a, b = table_to_raters(CONT3X3_ABSTRACTORS)
    # the coefficient matches; irrCAC's table formula divides the variance by n, its raw formula
    # (ours) by n - 1, so the SEs differ by sqrt(n / (n - 1))
    res = brennan_prediger_kappa([a, b])
    assert res.value == pytest.approx(0.835, abs=1e-12)
    assert res.standard_error == pytest.approx(0.04693346 * np.sqrt(100 / 99), abs=5e-8)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_a_constant_rater_gives_kappa_zero_with_no_interval_and_the_reason(weights):
    # issue 24, point 3: kappa is 0 whatever the other rater does, and the large-sample variance
    # is 0 up to rounding: an interval ~1e-8 wide would read as certainty
    res = cohen_kappa([2, 2, 2, 2, 2, 2], [1, 2, 3, 2, 1, 3], weights=weights, categories=[1, 2, 3])
    assert res.value == pytest.approx(0.0, abs=1e-12)
    assert res.standard_error is None and res.confidence_interval is None
    assert "rater A used a single category" in res.interval_reason
    swapped = cohen_kappa([1, 2, 3, 2, 1, 3], [2, 2, 2, 2, 2, 2], weights=weights, categories=[1, 2, 3])
    assert swapped.confidence_interval is None and "rater B used a single category" in swapped.interval_reason
    assert cohen_kappa([1, 2, 3, 2, 1, 3], [1, 2, 3, 3, 1, 3]).interval_reason is None
