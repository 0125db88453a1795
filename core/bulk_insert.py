"""Bulk writes for imports: PostgreSQL COPY (with ids reserved from the table's sequence), and
Django's ``bulk_create`` on other databases.

COPY is used because it is measurably faster than multi-row INSERT for the import bar
(100,000 items with their outputs in under 10 s; see BENCHMARKS.md, "Item import").
"""

import json
from collections.abc import Sequence

from django.db import connection, models


def uses_copy() -> bool:
    return connection.vendor == "postgresql"


def reserve_ids(model: type[models.Model], n: int) -> list[int]:
    """``n`` fresh primary keys from the model's PostgreSQL sequence."""
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [table, model._meta.pk.column, n],
        )
        return [row[0] for row in cursor.fetchall()]


def fresh_ids(model: type[models.Model], n: int) -> list[int]:
    """``n`` primary keys no row has, for rows inserted with their ids (children inserted beside them need
    them): from the sequence on PostgreSQL; past the largest id elsewhere (SQLite, whose writer holds the
    database while the transaction lasts)."""
    if n == 0:
        return []
    if uses_copy():
        return reserve_ids(model, n)
    top = model.objects.aggregate(top=models.Max("pk"))["top"] or 0
    return list(range(top + 1, top + 1 + n))


def _db_value(field: models.Field, value):
    if value is None:
        return None
    if isinstance(field, models.JSONField):
        return json.dumps(value, ensure_ascii=False)
    return value


def _column_types(table: str, columns: Sequence[str]) -> list[int]:
    """The type oids of ``table``'s ``columns``, in their order, from PostgreSQL's catalog."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname, atttypid FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 "
            "AND NOT attisdropped",
            [connection.ops.quote_name(table)],
        )
        oids = dict(cursor.fetchall())
    return [oids[column] for column in columns]


def insert_rows(
    model: type[models.Model], field_names: Sequence[str], rows: Sequence[tuple], *, binary: bool = False
) -> None:
    """Insert ``rows`` (tuples in ``field_names`` order, ``id`` allowed) in one round trip.

    ``binary``: on PostgreSQL, COPY in its binary format, the columns' types read from the catalog, for rows whose
    values are of their column's Python type already (int, float, str, bool, date, aware datetime; a dict or list
    for JSON). Neither side then formats or parses numbers as text: for 357,569 agreement snapshot rows, 1.3 s of
    Python instead of 4.4 s and 0.3 s less of PostgreSQL (BENCHMARKS.md, "Agreement recompute")."""
    if not rows:
        return
    fields = [model._meta.get_field(name) for name in field_names]
    if uses_copy():
        quote = connection.ops.quote_name
        table = model._meta.db_table
        columns = ", ".join(quote(f.column) for f in fields)
        sql = f"COPY {quote(table)} ({columns}) FROM STDIN"
        if binary:
            types = _column_types(table, [f.column for f in fields])
            with connection.cursor() as cursor, cursor.cursor.copy(f"{sql} (FORMAT BINARY)") as copy:
                copy.set_types(types)
                for row in rows:
                    copy.write_row(row)
            return
        with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
            for row in rows:
                copy.write_row([_db_value(f, v) for f, v in zip(fields, row, strict=True)])
    else:
        attnames = [f.attname for f in fields]
        model.objects.bulk_create([model(**dict(zip(attnames, row, strict=True))) for row in rows])


def refresh_planner_statistics(*models_: type[models.Model]) -> None:
    """ANALYZE tables after a bulk load, so PostgreSQL plans the next reads on real row counts.

    Autovacuum would get there later; until it does, a freshly imported project is planned as if
    empty (reading 150,000 judgments took 41 s through nested loops instead of 0.7 s).
    """
    if uses_copy():
        with connection.cursor() as cursor:
            for model in models_:
                cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")
