"""The recompute stores the same snapshot rows, every column, as the golden file written before the agreement
engine was restructured (tests/agreement/services/snapshot_golden.py builds the projects and the lines)."""

import os
from pathlib import Path

import pytest

from agreement.services import snapshot_compute_for_project
from tests.agreement.services.snapshot_golden import canonical_rows, golden_projects
from tests.golden_floats import float_digits

pytestmark = pytest.mark.django_db
GOLDEN = Path(__file__).with_name("golden") / "snapshot_rows.tsv"


def test_the_recompute_stores_the_golden_rows():
    lines = []
    for project in golden_projects():
        snapshot_compute_for_project(project_id=project.id)
        lines += canonical_rows(project)
    text = "\n".join(lines) + "\n"
    if os.environ.get("CONCORD_GOLDEN_WRITE"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text)
    expected = float_digits(GOLDEN.read_text()).splitlines()
    lines = float_digits(text).splitlines()
    assert len(lines) == len(expected)
    assert [line for line in lines if line not in set(expected)] == []
    assert lines == expected
