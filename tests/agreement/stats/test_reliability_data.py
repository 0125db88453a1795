"""Long records to reliability matrices and category counts."""

import numpy as np
import pytest

from agreement.stats import fleiss_kappa, krippendorff_alpha, reliability_matrix, unit_category_counts
from agreement.stats.reliability_data import as_float_values, category_counts, encode_labels, rating_slot_matrix
from tests.agreement.stats.published_data import KRIPPENDORFF_2011


def _records(matrix):
    raters, units = np.nonzero(~np.isnan(matrix))
    return units, raters, matrix[raters, units]


def test_round_trip_of_krippendorff_example():
    units, raters, values = _records(KRIPPENDORFF_2011)
    rd = reliability_matrix(units, raters, values)
    assert np.array_equal(rd.matrix, KRIPPENDORFF_2011, equal_nan=True)
    assert round(krippendorff_alpha(rd.matrix).value, 3) == 0.743


def test_string_labels_and_missing_values():
    rd = reliability_matrix(["u2", "u1", "u1", "u3"], ["ann", "bob", "ann", "bob"], [4, "", None, "5"])
    assert rd.units.tolist() == ["u1", "u2", "u3"] and rd.raters.tolist() == ["ann", "bob"]
    np.testing.assert_array_equal(rd.matrix, [[np.nan, 4.0, np.nan], [np.nan, np.nan, 5.0]])


def test_duplicate_policies():
    units, raters, values = ["a", "a", "a"], ["r", "r", "s"], [1, 3, 2]
    with pytest.raises(ValueError, match=r"1 \(unit, rater\) pairs are rated more than once, e.g. unit 'a'"):
        reliability_matrix(units, raters, values)
    assert reliability_matrix(units, raters, values, duplicates="last").matrix[:, 0].tolist() == [3, 2]
    assert reliability_matrix(units, raters, values, duplicates="mean").matrix[:, 0].tolist() == [2, 2]
    with pytest.raises(ValueError, match="valid choices are 'error', 'last', 'mean'"):
        reliability_matrix(units, raters, values, duplicates="first")


def test_vectorised_on_a_million_records():
    rng = np.random.default_rng(0)
    n_units, n_raters = 200_000, 5
    units = np.repeat(np.arange(n_units), n_raters)
    raters = np.tile(np.arange(n_raters), n_units)
    values = rng.integers(1, 6, units.size).astype(float)
    rd = reliability_matrix(units, raters, values)
    counts = category_counts(units, values, categories=[1, 2, 3, 4, 5])
    assert rd.matrix.shape == (5, n_units) and counts.counts.sum() == units.size


def test_category_counts_feed_fleiss():
    units = [1, 1, 1, 2, 2, 2, 3, 3]
    values = [1, 1, 2, 2, 2, 2, 1, np.nan]
    counts = category_counts(units, values, categories=[1, 2, 3])
    assert counts.counts.tolist() == [[2, 1, 0], [0, 3, 0], [1, 0, 0]]
    matrix = reliability_matrix(units, [0, 1, 2, 0, 1, 2, 0, 1], values).matrix
    assert np.array_equal(unit_category_counts(matrix, categories=[1, 2, 3]).counts, counts.counts)
    assert fleiss_kappa(counts.counts).n_units == 2


def test_values_outside_declared_categories_are_named():
    with pytest.raises(ValueError, match=r"not among the declared categories \[1.0, 2.0\]: \[7.0\]"):
        category_counts([1, 2], [1, 7], categories=[1, 2])


def test_rating_slots_in_record_order():
    rd = rating_slot_matrix(["x", "y", "x", "x", "y"], [1, 2, 3, 4, 5], n_slots=2)
    assert rd.matrix.tolist() == [[1, 2], [3, 5]]


def test_encode_labels():
    codes = encode_labels(["A", "tie", "B", None, "", float("nan")], ["B", "tie", "A"])
    assert codes.tolist()[:3] == [2.0, 1.0, 0.0] and np.isnan(codes[3:]).all()
    with pytest.raises(ValueError, match=r"labels not in the declared order \['B', 'tie', 'A'\]: \['draw'\]"):
        encode_labels(["draw"], ["B", "tie", "A"])


def test_as_float_values_rejects_words():
    with pytest.raises(ValueError, match="map category labels to codes first"):
        as_float_values(["good", 3])
