"""Streaming table writers: every table is written batch by batch to one file per format and split,
so a writer holds at most one batch (and, for Parquet, one row group) in memory."""

import csv
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

FORMATS = ("jsonl", "csv", "parquet")
EXTENSIONS = {"jsonl": "jsonl", "csv": "csv", "parquet": "parquet"}

# Column kinds and what each becomes in JSONL / CSV / Parquet.
KINDS = ("string", "int", "float", "bool", "timestamp", "string_list", "json", "outputs", "label")

# A Parquet row group closes at 100,000 rows or 32 MB of Arrow data, whichever comes first: 100,000
# judgment rows are ~10 MB, but 100,000 items with their texts would be ~120 MB held before writing.
ROW_GROUP_ROWS = 100_000
ROW_GROUP_BYTES = 32 * 2**20


@dataclass(frozen=True)
class Column:
    name: str
    kind: str
    description: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown column kind {self.kind!r}; kinds are {', '.join(KINDS)}")


@dataclass(frozen=True)
class TableSpec:
    """A table of the export: its columns in order, and for an ``outputs`` column how many
    output_k/system_k pairs its CSV spreads it over (the item import's CSV layout)."""

    name: str
    columns: tuple[Column, ...]
    description: str = ""
    csv_outputs: int = 0

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]


def iso_utc(moment: datetime | str | None) -> str | None:
    """``2024-03-01T10:00:00Z`` (microseconds kept when present): what the judgment import reads. Text
    passes through (selectors may have the database format dates)."""
    if moment is None or moment.__class__ is str:
        return moment
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _json_text(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _json_encoder() -> Callable[[dict], bytes]:
    """orjson when installed (about 5x faster; datetimes as ``…Z``, NaN as null), else the standard
    library with the same output."""
    try:
        import orjson
    except ImportError:

        def default(value):
            if isinstance(value, datetime):
                return iso_utc(value)
            raise TypeError(f"{type(value).__name__} is not JSON serialisable")

        def encode(record: dict) -> bytes:
            clean = {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in record.items()}
            return json.dumps(clean, ensure_ascii=False, separators=(",", ":"), default=default).encode()

        return encode
    option = orjson.OPT_UTC_Z
    return lambda record: orjson.dumps(record, option=option)


_CSV_BOOL = {True: "true", False: "false", None: None}.__getitem__  # 1 and 0 (SQLite) hash as True, False

# OWASP's rule against CSV injection (https://owasp.org/www-community/attacks/CSV_Injection): a spreadsheet
# runs a cell that starts with one of these as a formula, so such text gets a single quote in front.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# Column kinds whose cells hold text from outside; numbers (a negative score) are data and stay as they are,
# and JSON cells start with { [ " or a digit or minus sign of a number, which no spreadsheet runs.
CSV_TEXT_KINDS = ("string", "label")


def csv_text(value):
    """A text cell a spreadsheet will not run as a formula; anything but text passes through."""
    return "'" + value if value.__class__ is str and value.startswith(FORMULA_STARTS) else value


def _csv_converter(kind: str, *, neutralise: bool = True) -> Callable | None:
    """How a CSV cell is written, or None when the csv module already writes the value right
    (strings, numbers, and None as an empty cell)."""
    if kind in CSV_TEXT_KINDS:
        return csv_text if neutralise else None
    if kind == "timestamp":
        return iso_utc
    if kind == "bool":
        return _CSV_BOOL
    if kind == "json":
        return lambda v: None if v is None else _json_text(v)
    if kind == "string_list":
        cache: dict[int, tuple[list, str]] = {}  # display orders repeat: the selectors hand out shared lists

        def encode(v):
            if v is None:
                return None
            hit = cache.get(id(v))
            if hit is None or hit[0] is not v:
                hit = (v, _json_text(v))
                if len(cache) < 10_000:
                    cache[id(v)] = hit
            return hit[1]

        return encode
    if kind == "float":
        return lambda v: None if v is None or not math.isfinite(v) else v
    return None


class _JsonlFile:
    def __init__(self, path: Path, spec: TableSpec):
        self.handle = open(path, "wb")
        self.names = spec.names
        self.encode = _json_encoder()

    def write(self, rows: Sequence[tuple]) -> None:
        names, encode = self.names, self.encode
        if rows:
            self.handle.write(b"\n".join([encode(dict(zip(names, row, strict=True))) for row in rows]) + b"\n")

    def close(self) -> None:
        self.handle.close()


class _CsvFile:
    """Text cells that would run as spreadsheet formulas get a leading ``'`` unless ``raw_text``."""

    def __init__(self, path: Path, spec: TableSpec, *, raw_text: bool = False):
        self.handle = open(path, "w", encoding="utf-8", newline="")
        # RFC 4180's CRLF: the csv module quotes a field holding a character of the line terminator, so with
        # "\n" alone a carriage return inside a text was written bare and split the row for every reader.
        self.writer = csv.writer(self.handle, lineterminator="\r\n")
        self.outputs_at = next((k for k, c in enumerate(spec.columns) if c.kind == "outputs"), None)
        self.text = (lambda v: v) if raw_text else csv_text
        self.converters = [
            (k, convert)
            for k, convert in enumerate(_csv_converter(c.kind, neutralise=not raw_text) for c in spec.columns)
            if convert is not None and k != self.outputs_at
        ]
        self.n_outputs = spec.csv_outputs
        header = [c.name for c in spec.columns if c.kind != "outputs"]
        if self.outputs_at is not None:
            header += [f"{prefix}_{k}" for k in range(1, self.n_outputs + 1) for prefix in ("system", "output")]
        self.writer.writerow(header)

    def write(self, rows: Sequence[tuple]) -> None:
        """Converts column by column (``map`` over each column that needs it), which costs a third of
        converting row by row."""
        if not rows:
            return
        columns = list(zip(*rows, strict=True))
        for k, convert in self.converters:
            column = columns[k]
            sample = next((v for v in column if v is not None), None)
            if convert is iso_utc and (sample is None or sample.__class__ is str):
                continue  # the database formatted the dates already
            columns[k] = map(convert, column)
        at = self.outputs_at
        if at is not None:
            outputs = columns.pop(at)
            text = self.text
            for k in range(self.n_outputs):
                columns.append([text(o[k]["system"]) if len(o) > k else "" for o in outputs])
                columns.append([text(o[k]["text"]) if len(o) > k else "" for o in outputs])
        self.writer.writerows(zip(*columns, strict=True))

    def close(self) -> None:
        self.handle.close()


def _arrow_type(kind: str, pa, *, label_type=None):
    return {
        "string": pa.string(),
        "int": pa.int64(),
        "float": pa.float64(),
        "bool": pa.bool_(),
        "timestamp": pa.timestamp("us", tz="UTC"),
        "string_list": pa.list_(pa.string()),
        "json": pa.string(),
        "outputs": pa.list_(pa.struct([("system", pa.string()), ("text", pa.string())])),
        "label": label_type,
    }[kind]


class _ParquetFile:
    """Each batch becomes Arrow arrays at once (compact, off the Python heap), written as one row group
    every ROW_GROUP_ROWS rows or ROW_GROUP_BYTES bytes."""

    def __init__(self, path: Path, spec: TableSpec, label_type: str):
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.pa = pa
        label = {"string": pa.string(), "int": pa.int64(), "float": pa.float64()}[label_type]
        self.schema = pa.schema(
            [
                pa.field(c.name, _arrow_type(c.kind, pa, label_type=label), metadata={"description": c.description})
                for c in spec.columns
            ],
            metadata={"table": spec.name, "description": spec.description},
        )
        self.json_columns = {k for k, c in enumerate(spec.columns) if c.kind == "json"}
        self.timestamp_columns = {k for k, c in enumerate(spec.columns) if c.kind == "timestamp"}
        self.writer = pq.ParquetWriter(path, self.schema, compression="zstd")
        self.batches: list = []
        self.n = self.nbytes = 0

    def write(self, rows: Sequence[tuple]) -> None:
        if not rows:
            return
        arrays = []
        for k, (values, f) in enumerate(zip(zip(*rows, strict=True), self.schema, strict=True)):
            if k in self.json_columns:
                values = [None if v is None else _json_text(v) for v in values]
            elif k in self.timestamp_columns and any(v.__class__ is str for v in values):
                # ISO text from the database: Arrow parses it in C++
                arrays.append(self.pa.array(values, type=self.pa.string()).cast(f.type))
                continue
            arrays.append(self.pa.array(values, type=f.type))
        batch = self.pa.RecordBatch.from_arrays(arrays, schema=self.schema)
        self.batches.append(batch)
        self.n += len(rows)
        self.nbytes += batch.nbytes
        if self.n >= ROW_GROUP_ROWS or self.nbytes >= ROW_GROUP_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.n:
            self.writer.write_table(self.pa.Table.from_batches(self.batches), row_group_size=self.n)
        self.batches, self.n, self.nbytes = [], 0, 0

    def close(self) -> None:
        self.flush()
        self.writer.close()


@dataclass
class WrittenFile:
    """One data file of the export: where it goes in the zip, where it is on disk, how many rows."""

    table: str
    format: str
    split: str
    arcname: str
    path: Path
    n_rows: int = 0


@dataclass
class TableWriter:
    """Writes one table in every requested format; rows arrive split by split (a new split closes
    the files of the previous one), so at most one file per format is open at a time."""

    spec: TableSpec
    directory: Path
    formats: Sequence[str]
    split_files: bool
    label_type: str = "string"
    csv_raw_text: bool = False
    files: list[WrittenFile] = field(default_factory=list)
    _split: str | None = None
    _open: list = field(default_factory=list)

    def write(self, split: str, rows: Sequence[tuple]) -> None:
        if split != self._split or not self._open:
            self._close_split()
            self._open_split(split)
        for handle in self._open:
            handle.write(rows)
        for written in self.files[-len(self.formats) :]:
            written.n_rows += len(rows)

    def _open_split(self, split: str) -> None:
        self._split = split
        for fmt in self.formats:
            name = (
                f"{self.spec.name}/{split}.{EXTENSIONS[fmt]}"
                if self.split_files
                else f"{self.spec.name}.{EXTENSIONS[fmt]}"
            )
            path = self.directory / name.replace("/", "__")
            if fmt == "parquet":
                handle = _ParquetFile(path, self.spec, self.label_type)
            elif fmt == "csv":
                handle = _CsvFile(path, self.spec, raw_text=self.csv_raw_text)
            else:
                handle = _JsonlFile(path, self.spec)
            self._open.append(handle)
            self.files.append(WrittenFile(self.spec.name, fmt, split, f"data/{name}", path))

    def _close_split(self) -> None:
        for handle in self._open:
            handle.close()
        self._open = []

    def close(self, *, empty_split: str | None = None) -> list[WrittenFile]:
        """Closes the open files; a table that got no row at all still gets its (empty) files."""
        if not self.files and empty_split is not None:
            self._open_split(empty_split)
        self._close_split()
        return self.files
