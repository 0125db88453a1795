"""Files of pairwise votes read in batches with pyarrow: CSV, JSON lines or Parquet, in a public arena's layout
(``model_a, model_b, winner, judge, tstamp, question_id``, as in the Chatbot Arena dumps) or Concord's
(``system_a, system_b, winner, rater, submitted_at, prompt``), both with an optional ``sampling_probability``.
Columns named in neither are ignored (arena dumps carry the conversations, languages, moderation flags...).

A batch's values are pyarrow arrays under Concord's names; what they mean is checked by ``vote_import``. A file
pyarrow cannot parse (a CSV row with too few cells, a JSON line that is not JSON, a number where a name belongs)
is read again line by line with the platform's own readers to name the lines at fault.
"""

import csv
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from core.import_records import BadRecord, ImportRejected, ImportReport, records

FORMATS = ("csv", "jsonl", "parquet")
ARENA, CONCORD = "arena", "concord"
FIELDS = ("system_a", "system_b", "winner", "rater", "prompt", "submitted_at", "sampling_probability")
REQUIRED = ("system_a", "system_b", "winner")
# Concord's name of each field → the file's column, per layout.
COLUMNS = {
    ARENA: {
        "system_a": "model_a",
        "system_b": "model_b",
        "winner": "winner",
        "rater": "judge",
        "prompt": "question_id",
        "submitted_at": "tstamp",
        "sampling_probability": "sampling_probability",
    },
    CONCORD: {name: name for name in FIELDS},
}
# A batch of CSV or JSON text; pyarrow parses the blocks on both cores.
BLOCK_BYTES = 16 << 20
PARQUET_BATCH_ROWS = 256_000


def numeric_fields(layout: str) -> frozenset[str]:
    """Fields that are numbers in a JSON or Parquet file: arena dumps give ``tstamp`` in seconds since 1970;
    Concord's ``submitted_at`` is an ISO 8601 text."""
    return frozenset({"sampling_probability", "submitted_at"} if layout == ARENA else {"sampling_probability"})


@dataclass(frozen=True)
class VoteBatch:
    """``first_line``: the file line (Parquet: the row, from 1) of the batch's first vote; ``columns``: the
    fields present, under Concord's names."""

    first_line: int
    columns: dict[str, pa.Array]

    def __len__(self) -> int:
        return len(next(iter(self.columns.values())))


def _rejected(line: int, message: str) -> ImportRejected:
    report = ImportReport()
    report.add(line, message)
    return ImportRejected(report)


def _text_header(path, fmt: str) -> list[str]:
    with open(path, "rb") as stream:
        for _, record in records(stream, fmt):
            if isinstance(record, BadRecord):
                continue
            return list(record)
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as text:
        return next(csv.reader(text), []) if fmt == "csv" else []


class VoteFile:
    """One file of votes: its layout from the header, its batches, how far reading has got."""

    def __init__(self, path, fmt: str):
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {fmt!r}")
        self.path, self.fmt = path, fmt
        self.size = os.path.getsize(path)
        if fmt == "parquet":
            try:
                self.parquet = pq.ParquetFile(path)
            except (pa.ArrowException, OSError) as exc:
                raise _rejected(1, f"not a Parquet file: {exc}") from exc
            header = self.parquet.schema_arrow.names
        else:
            header = [name.strip() for name in _text_header(path, "csv" if fmt == "csv" else "jsonl")]
        if not header:
            raise _rejected(1, "the file holds no votes")
        self.layout = ARENA if "model_a" in header else CONCORD
        names = COLUMNS[self.layout]
        missing = [names[f] for f in REQUIRED if names[f] not in header]
        if missing:
            raise _rejected(
                1,
                f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}: a vote file "
                "has model_a, model_b, winner (arena) or system_a, system_b, winner (Concord)",
            )
        # A JSON line may leave out an optional key the first line has, or hold one it does not.
        self.fields = {f: names[f] for f in FIELDS if names[f] in header or fmt == "jsonl"}
        self.done = 0

    def column(self, field: str) -> str:
        """The file's name of a field, for messages."""
        return COLUMNS[self.layout][field]

    def batches(self) -> Iterator[VoteBatch]:
        first = 1 if self.fmt == "parquet" else (2 if self.fmt == "csv" else 1)
        try:
            for batch in self._arrow_batches():
                columns = {f: batch.column(self.fields[f]) for f in self.fields}
                vote_batch = VoteBatch(first, columns)
                first += len(vote_batch)
                if len(vote_batch):
                    yield vote_batch
        except pa.ArrowInvalid as exc:
            raise self._located(exc) from exc
        self.done = self.size

    def _arrow_batches(self):
        if self.fmt == "parquet":
            for batch in self.parquet.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=list(self.fields.values())):
                self.done += batch.nbytes
                yield pa.RecordBatch.from_arrays(
                    [self._parquet_column(f, batch.column(c)) for f, c in self.fields.items()],
                    names=list(self.fields.values()),
                )
            return
        with pa.input_stream(self.path) as stream:
            if self.fmt == "csv":
                reader = pa_csv.open_csv(
                    stream,
                    read_options=pa_csv.ReadOptions(block_size=BLOCK_BYTES),
                    convert_options=pa_csv.ConvertOptions(
                        include_columns=list(self.fields.values()),
                        column_types=dict.fromkeys(self.fields.values(), pa.string()),
                        strings_can_be_null=True,
                        null_values=[""],
                    ),
                )
            else:
                numbers = numeric_fields(self.layout)
                schema = pa.schema([(c, pa.float64() if f in numbers else pa.string()) for f, c in self.fields.items()])
                reader = pa_json.open_json(
                    stream,
                    read_options=pa_json.ReadOptions(block_size=BLOCK_BYTES),
                    parse_options=pa_json.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore"),
                )
            for batch in reader:
                self.done = stream.tell()
                yield batch

    def _parquet_column(self, field: str, values: pa.Array) -> pa.Array:
        kind = values.type
        if pa.types.is_dictionary(kind):
            values, kind = values.dictionary_decode(), kind.value_type
        if field in numeric_fields(self.layout) or field == "submitted_at":
            if pa.types.is_timestamp(kind) and field == "submitted_at":
                return values
            if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
                return values.cast(pa.float64())
            if field == "submitted_at" and self.layout == CONCORD and pa.types.is_string(kind):
                return values
            raise _rejected(
                1,
                f"{self.column(field)}: a column of numbers{' or times' * (field == 'submitted_at')} "
                f"is expected, the file has {kind}",
            )
        if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_integer(kind):
            return values.cast(pa.string())
        raise _rejected(1, f"{self.column(field)}: a column of names (text) is expected, the file has {kind}")

    def _located(self, exc: pa.ArrowInvalid) -> ImportRejected:
        """The lines pyarrow could not parse, found by reading the file again line by line."""
        report = ImportReport()
        numbers = numeric_fields(self.layout) if self.fmt == "jsonl" else frozenset()
        with open(self.path, "rb") as stream:
            for line, record in records(stream, "csv" if self.fmt == "csv" else "jsonl"):
                if isinstance(record, BadRecord):
                    report.add(line, str(record))
                    continue
                for field, column in self.fields.items():
                    value = record.get(column)
                    if value is None or (self.fmt == "csv" and isinstance(value, str)):
                        continue
                    if field in numbers:
                        if isinstance(value, bool) or not isinstance(value, int | float):
                            report.add(line, f"{column}: must be a number, got {json.dumps(value)[:40]}")
                    elif not isinstance(value, str):
                        report.add(line, f"{column}: must be text, got {json.dumps(value)[:40]}")
        if not report.n_errors:
            report.add(1, f"the file could not be read: {exc}")
        return ImportRejected(report)


def write_csv(table: pa.Table) -> bytes:
    """A table as CSV without a header, as PostgreSQL's COPY reads it (a null is an empty, unquoted cell)."""
    sink = io.BytesIO()
    pa_csv.write_csv(table, sink, pa_csv.WriteOptions(include_header=False, quoting_style="needed"))
    return sink.getvalue()
