"""Bulk inserts: the binary COPY stores what the text COPY stores, value for value, whatever the column's type."""

import math
from datetime import date, datetime, timedelta, timezone

import pytest
from django.db import connection, transaction

from agreement.engine.rows import SNAPSHOT_FIELDS
from agreement.models import AgreementSnapshot
from core.bulk_insert import insert_rows
from tests.annotation.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def snapshot_rows(project, rater_id: int) -> list[tuple]:
    """Rows in SNAPSHOT_FIELDS order that stress each column type: nulls, extreme and tiny floats, non-ASCII text,
    nested JSON, an aware time off UTC."""
    when = datetime(2026, 12, 4, 3, 7, 1, 123456, tzinfo=timezone(timedelta(hours=5, minutes=30)))
    base = {
        "project": project.id,
        "window": "cumulative",
        "week_start": date(2026, 11, 30),
        "scope": "pair",
        "scope_key": "criterion=1|pair=2-3",
        "criterion": None,
        "subgroup": "Ärzte/日本語 «x»",
        "rater_a": rater_id,
        "rater_b": None,
        "statistic": "cohen_kappa_quadratic",
        "is_main": True,
        "value": 0.1 + 0.2,
        "ci_low": -1.0,
        "ci_high": 5e-324,
        "ci_method": "bootstrap",
        "n_units": 2_147_483_647,
        "n_raters": 0,
        "n_pairable": 7,
        "status": "ok",
        "reason": "",
        "unreliable": False,
        "detail": {"values": [1, 2.5, None], "matrix": [[0, 1], [1, 0]], "note": "é\u2028"},
        "computed_at": when,
        "rating_unit": "turn",
    }
    empty = {**base, "value": None, "ci_low": None, "ci_high": None, "status": "insufficient_data"}
    empty.update(reason="no unit is rated by at least two raters", detail={}, is_main=False, unreliable=True)
    return [
        tuple(row[f] if f != "statistic" else f"{row[f]}-{k}" for f in SNAPSHOT_FIELDS)
        for k, row in enumerate([base, empty, {**base, "value": 1.7976931348623157e308, "rater_a": None}])
    ]


def stored(project, generation: int) -> list[tuple]:
    values = AgreementSnapshot.all_generations.filter(project=project, generation=generation).order_by("statistic")
    return [tuple(row) for row in values.values_list(*[f for f in SNAPSHOT_FIELDS if f != "computed_at"])] + [
        tuple(values.values_list("computed_at", flat=True))
    ]


def test_the_binary_copy_stores_the_values_the_text_copy_stores():
    # Given rows of every column type
    project = ProjectFactory()
    rows = snapshot_rows(project, UserFactory().id)
    # When they are inserted once as text, once in the binary format, under two generations
    fields = ["generation", *SNAPSHOT_FIELDS]
    insert_rows(AgreementSnapshot, fields, [(1, *row) for row in rows])
    insert_rows(AgreementSnapshot, fields, [(2, *row) for row in rows], binary=True)
    # Then both read back the same, and as given (times as the same instant)
    text, binary = stored(project, 1), stored(project, 2)
    assert binary == text
    assert [row[SNAPSHOT_FIELDS.index("value")] for row in binary[:-1]] == [0.1 + 0.2, None, 1.7976931348623157e308]
    assert binary[0][SNAPSHOT_FIELDS.index("detail")] == rows[0][SNAPSHOT_FIELDS.index("detail")]
    assert binary[-1] == tuple(row[SNAPSHOT_FIELDS.index("computed_at")] for row in rows)
    assert not any(isinstance(v, float) and math.isnan(v) for row in binary[:-1] for v in row)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the binary COPY is PostgreSQL's")
def test_a_binary_row_of_the_wrong_type_fails_whole_and_writes_nothing():
    # Given rows whose second has text where a count belongs
    project = ProjectFactory()
    rows = snapshot_rows(project, UserFactory().id)
    wrong = list(rows[1])
    wrong[SNAPSHOT_FIELDS.index("n_units")] = "7"
    # When they are inserted in the binary format, Then the insert fails and no row is left
    with pytest.raises(TypeError), transaction.atomic():  # psycopg refuses it before it reaches the server
        insert_rows(AgreementSnapshot, ["generation", *SNAPSHOT_FIELDS], [(3, *rows[0]), (3, *wrong)], binary=True)
    assert not AgreementSnapshot.all_generations.filter(project=project, generation=3).exists()
