"""The coincidence matrix on the dashboard: each cell shaded by its share above or below chance (Krippendorff's
expected coincidences), categories named by the task type (pairwise: the first output as imported)."""

import numpy as np
import pytest

from agreement.selectors.dashboard import _confusion
from annotation.models import Criterion
from annotation.task_types import REGISTRY


def snapshot(values, matrix):
    return {"detail": {"values": values, "matrix": matrix}, "value": 0.5, "n_units": 10}


def test_excess_is_observed_minus_expected_coincidence_share():
    matrix = np.array([[6.0, 2.0, 1.0], [2.0, 4.0, 1.0], [1.0, 1.0, 2.0]])
    criterion = Criterion(name="fluency", scale_min=1, scale_max=3, labels=["bad", "ok", "good"])
    shown = _confusion(snapshot([1.0, 2.0, 3.0], matrix.tolist()), criterion, REGISTRY["likert"])
    n_c, n = matrix.sum(axis=1), matrix.sum()
    expected = (np.outer(n_c, n_c) - np.diag(n_c)) / (n - 1)  # Krippendorff 2011, expected coincidences
    excess = np.array([[cell.excess for cell in row.cells] for row in shown.rows])
    assert excess == pytest.approx((matrix - expected) / n, abs=1e-12)
    assert excess.sum() == pytest.approx(0, abs=1e-12)  # as many coincidences as chance gives, in all
    assert max(abs(cell.shade) for row in shown.rows for cell in row.cells) == pytest.approx(1)
    assert all(row.cells[k].excess > 0 for k, row in enumerate(shown.rows))  # raters agree beyond chance
    assert shown.names == ["1 bad", "2 ok", "3 good"]


def test_pairwise_categories_are_named_for_the_first_output_as_imported():
    criterion = Criterion(name="overall", scale_min=None, scale_max=None, labels=[])
    shown = _confusion(snapshot([0.0, 1.0, 2.0], [[2, 1, 0], [1, 2, 1], [0, 1, 4]]), criterion, REGISTRY["pairwise"])
    assert shown.names == ["first loses", "tie", "first wins"]
    assert "first output as imported" in REGISTRY["pairwise"].category_note
