"""The written policy for thin and malformed data: InsufficientDataError or ValueError, never NaN."""

import re

import numpy as np
import pytest

from agreement.stats import (
    InsufficientDataError,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    icc,
    krippendorff_alpha,
    percent_agreement,
)
from agreement.stats.correlation import rater_correlation
from agreement.stats.counts import cohen_kappa_from_table
from agreement.stats.kappa import brennan_prediger_kappa
from agreement.stats.percent import specific_agreement, unanimous_agreement
from agreement.stats.prevalence import pabak

nan = np.nan
MATRIX_STATISTICS = [
    krippendorff_alpha,
    gwet_ac1,
    gwet_ac2,
    brennan_prediger_kappa,
    icc,
    percent_agreement,
    unanimous_agreement,
    specific_agreement,
]


def test_insufficient_data_is_a_value_error():
    assert issubclass(InsufficientDataError, ValueError)


@pytest.mark.parametrize("statistic", MATRIX_STATISTICS)
@pytest.mark.parametrize("empty", [np.empty((0, 5)), np.empty((3, 0))])
def test_empty_matrix(statistic, empty):
    with pytest.raises(InsufficientDataError, match="reliability_data is empty"):
        statistic(empty)


@pytest.mark.parametrize("statistic", MATRIX_STATISTICS)
def test_all_missing(statistic):
    with pytest.raises(InsufficientDataError, match="every entry is missing"):
        statistic(np.full((3, 4), nan))


@pytest.mark.parametrize(
    "statistic",
    [
        krippendorff_alpha,
        gwet_ac1,
        percent_agreement,
        unanimous_agreement,
        specific_agreement,
        brennan_prediger_kappa,
    ],
)
def test_no_unit_rated_twice(statistic):
    with pytest.raises(InsufficientDataError, match="no unit is rated by at least two raters"):
        statistic([[1, nan, 3], [nan, 2, nan]])


@pytest.mark.parametrize("statistic", MATRIX_STATISTICS)
@pytest.mark.parametrize("bad", [[1, 2, 3], [[[1]]], "abc"])
def test_wrong_shape(statistic, bad):
    with pytest.raises(ValueError, match=r"must be a 2-D array of shape \(n_raters, n_units\)|must hold numbers"):
        statistic(bad)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_single_value(level):
    with pytest.raises(InsufficientDataError, match=r"a single value \(3\) is used in all pairable ratings"):
        krippendorff_alpha([[3, 3, 3, nan], [3, 3, nan, 1]], level_of_measurement=level)


def test_alpha_unknown_level_and_negative_ratio():
    with pytest.raises(
        ValueError,
        match="unknown level_of_measurement 'likert'; valid choices are 'nominal', 'ordinal', 'interval', 'ratio'",
    ):
        krippendorff_alpha([[1, 2]], level_of_measurement="likert")
    with pytest.raises(ValueError, match="the ratio level needs non-negative values"):
        krippendorff_alpha([[-1, 2], [1, 2]], level_of_measurement="ratio")
    with pytest.raises(ValueError, match="infinite value"):
        krippendorff_alpha([[np.inf, 2], [1, 2]])


def test_kappa_single_category_and_no_overlap():
    with pytest.raises(InsufficientDataError, match="a single category is in use by both raters"):
        cohen_kappa([2, 2, 2], [2, 2, 2], categories=[1, 2, 3])
    with pytest.raises(InsufficientDataError, match="no unit is rated by both raters"):
        cohen_kappa([1, nan], [nan, 2])
    with pytest.raises(ValueError, match="lengths 2 and 3 differ"):
        cohen_kappa([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="valid choices are None, 'linear', 'quadratic'"):
        cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(ValueError, match=r"not among the declared categories \[1.0, 2.0\]: \[3.0\]"):
        cohen_kappa([1, 3], [1, 2], categories=[1, 2])
    with pytest.raises(InsufficientDataError, match="the table is empty"):
        cohen_kappa_from_table([[0, 0], [0, 0]])
    with pytest.raises(ValueError, match=r"table must be square"):
        cohen_kappa_from_table([[1, 2, 3]])


def test_fleiss_degenerate_counts():
    with pytest.raises(InsufficientDataError, match="a single category is in use"):
        fleiss_kappa([[3, 0], [2, 0]])
    with pytest.raises(InsufficientDataError, match="no unit is rated by at least two raters"):
        fleiss_kappa([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="non-negative whole numbers"):
        fleiss_kappa([[1.5, 0.5], [1, 1]])
    with pytest.raises(InsufficientDataError, match="counts are empty"):
        fleiss_kappa(np.empty((0, 3)))


def test_gwet_single_observed_category_needs_declared_scale():
    with pytest.raises(InsufficientDataError, match="a single category: AC1/AC2 need at least two"):
        gwet_ac1([[1, 1], [1, 1]])
    assert gwet_ac1([[1, 1], [1, 1]], categories=[0, 1]).value == 1.0
    with pytest.raises(ValueError, match="unknown weights 'cubic'; valid choices are 'identity', 'linear'"):
        gwet_ac2([[1, 2], [1, 2]], weights="cubic")
    with pytest.raises(ValueError, match=r"a weight matrix must be \(2, 2\)"):
        gwet_ac2([[1, 2], [1, 2]], weights=np.eye(3))
    with pytest.raises(ValueError, match="categories must be strictly increasing"):
        gwet_ac1([[1, 2], [1, 2]], categories=[2, 1])


def test_icc_degenerate():
    with pytest.raises(InsufficientDataError, match="at least two units rated by all 2 raters; found 1"):
        icc([[1, 2, nan], [1, nan, 3]])
    with pytest.raises(InsufficientDataError, match="ICC needs at least two raters"):
        icc([[1, 2, 3]])
    with pytest.raises(InsufficientDataError, match="all ratings are equal"):
        icc([[2, 2], [2, 2]])
    with pytest.raises(ValueError, match=r"unknown model 'ICC\(4,1\)'; valid choices are 'ICC\(1,1\)'"):
        icc([[1, 2], [1, 2]], model="ICC(4,1)")


def test_correlation_degenerate():
    with pytest.raises(InsufficientDataError, match="at least three units rated by both raters; found 2"):
        rater_correlation([1, 2, nan], [1, 2, 3])
    with pytest.raises(InsufficientDataError, match="a rater gives the same score to every unit"):
        rater_correlation([1, 1, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="valid choices are 'pearson', 'spearman', 'kendall'"):
        rater_correlation([1, 2, 3], [1, 2, 3], method="tau")


def test_pabak_needs_two_categories_and_confidence_level_is_checked():
    with pytest.raises(InsufficientDataError, match="PABAK needs at least two categories"):
        pabak([1, 1], [1, 1])
    with pytest.raises(ValueError, match=r"confidence_level must be in \(0, 1\)"):
        cohen_kappa([1, 2], [1, 2], confidence_level=95)


def test_results_never_hold_nan():
    res = cohen_kappa([0, 1, 0, 1], [1, 0, 1, 0])
    values = [v for v in vars(res).values() if isinstance(v, float)]
    assert not any(np.isnan(values))


# issue 24, point 1: equal unit means left a zero denominator (a raw ZeroDivisionError)
@pytest.mark.parametrize("model", ["ICC(1,k)", "ICC(2,1)", "ICC(2,k)", "ICC(3,k)"])
def test_icc_with_equal_unit_means_names_the_reason(model):
    with pytest.raises(InsufficientDataError, match=rf"{re.escape(model)} is undefined: .*unit means"):
        icc([[1, 2], [2, 1]], model=model)


@pytest.mark.parametrize("model", ["ICC(1,1)", "ICC(3,1)"])
def test_icc_with_equal_unit_means_is_defined_where_the_denominator_is_not_zero(model):
    assert icc([[1, 2], [2, 1]], model=model).value == pytest.approx(-1.0)
