"""Coincidence and confusion matrices."""

import krippendorff
import numpy as np
import pytest

from agreement.stats import krippendorff_alpha
from agreement.stats.coincidence import coincidence_matrix, confusion_matrix
from tests.agreement.stats.published_data import KRIPPENDORFF_2011


def test_krippendorff_2011_coincidences():
    # Krippendorff (2011), section C: n_c = 9, 13, 10, 5, 3 and n = 40; first row worked by hand
    cm = coincidence_matrix(KRIPPENDORFF_2011)
    assert cm.kind == "coincidence" and cm.values.tolist() == [1, 2, 3, 4, 5]
    assert cm.matrix.sum(axis=1) == pytest.approx([9, 13, 10, 5, 3])
    assert cm.matrix.sum() == pytest.approx(40)
    assert cm.matrix[0] == pytest.approx([7, 4 / 3, 1 / 3, 1 / 3, 0])
    assert np.allclose(cm.matrix, cm.matrix.T)


def test_matches_the_package_and_gives_alpha():
    rng = np.random.default_rng(8)
    data = rng.integers(1, 5, (5, 40)).astype(float)
    data[rng.random(data.shape) < 0.3] = np.nan
    cm = coincidence_matrix(data)
    counts = krippendorff.krippendorff._reliability_data_to_value_counts(data, cm.values)
    assert cm.matrix == pytest.approx(krippendorff.krippendorff._coincidences(counts), abs=1e-12)
    o, n_c = cm.matrix, cm.matrix.sum(axis=1)
    n = n_c.sum()
    nominal = 1 - (n - 1) * (o.sum() - np.trace(o)) / (n * n - (n_c**2).sum())
    assert nominal == pytest.approx(krippendorff_alpha(data).value)


def test_declared_domain_adds_empty_rows():
    cm = coincidence_matrix(KRIPPENDORFF_2011, value_domain=[1, 2, 3, 4, 5, 6])
    assert cm.values.tolist() == [1, 2, 3, 4, 5, 6]
    assert cm.matrix[5].sum() == 0


def test_confusion_matrix_rows_are_rater_a():
    res = confusion_matrix([0, 0, 1, 2], [0, 1, 1, 2], categories=[0, 1, 2, 3])
    assert res.matrix.tolist() == [[1, 1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]]
