"""Streaming table writers: every table is written batch by batch to one file per format and split,
so a writer holds at most one batch (and, for Parquet, one row group) in memory."""

import csv
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

FORMATS = ("jsonl", "csv", "parquet")
EXTENSIONS = {"jsonl": "jsonl", "csv": "csv", "parquet": "parquet"}

# Column kinds and what each becomes in JSONL / CSV / Parquet.
KINDS = ("string", "int", "float", "bool", "timestamp", "string_list", "json", "outputs", "label")

# A Parquet row group of 100,000 judgment rows is ~5-10 MB of Arrow memory and reads well column by column.
ROW_GROUP_ROWS = 100_000


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


def iso_utc(moment: datetime | None) -> str | None:
    """``2024-03-01T10:00:00Z`` (microseconds kept when present): what the judgment import reads."""
    if moment is None:
        return None
    return moment.isoformat().replace("+00:00", "Z")


def _json_text(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _finite(value):
    return None if value is None or (isinstance(value, float) and not math.isfinite(value)) else value


def _json_converter(kind: str) -> Callable | None:
    if kind == "timestamp":
        return iso_utc
    if kind == "float":
        return _finite
    return None


def _csv_converter(kind: str) -> Callable:
    if kind == "timestamp":
        return lambda v: iso_utc(v) or ""
    if kind == "bool":
        return lambda v: "" if v is None else ("true" if v else "false")
    if kind in ("string_list", "json"):
        return lambda v: "" if v is None else _json_text(v)
    if kind == "float":
        return lambda v: "" if _finite(v) is None else repr(float(v))
    if kind == "label":
        return lambda v: "" if v is None else (v if isinstance(v, str) else repr(v))
    return lambda v: "" if v is None else v


class _JsonlFile:
    def __init__(self, path: Path, spec: TableSpec):
        self.handle = open(path, "w", encoding="utf-8", newline="\n")
        self.names = spec.names
        self.converters = [
            (k, c) for k, c in enumerate(_json_converter(col.kind) for col in spec.columns) if c
        ]
        self.encode = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode

    def write(self, rows: Sequence[tuple]) -> None:
        names, converters, encode = self.names, self.converters, self.encode
        lines = []
        for row in rows:
            if converters:
                row = list(row)
                for k, convert in converters:
                    row[k] = convert(row[k])
            lines.append(encode(dict(zip(names, row, strict=True))))
        if lines:
            self.handle.write("\n".join(lines))
            self.handle.write("\n")

    def close(self) -> None:
        self.handle.close()


class _CsvFile:
    def __init__(self, path: Path, spec: TableSpec):
        self.handle = open(path, "w", encoding="utf-8", newline="")
        self.writer = csv.writer(self.handle, lineterminator="\n")
        self.converters = [_csv_converter(c.kind) for c in spec.columns]
        self.outputs_at = next((k for k, c in enumerate(spec.columns) if c.kind == "outputs"), None)
        self.n_outputs = spec.csv_outputs
        header = [c.name for c in spec.columns if c.kind != "outputs"]
        if self.outputs_at is not None:
            header += [
                f"{prefix}_{k}" for k in range(1, self.n_outputs + 1) for prefix in ("system", "output")
            ]
        self.writer.writerow(header)

    def write(self, rows: Sequence[tuple]) -> None:
        converters, at = self.converters, self.outputs_at
        if at is None:
            self.writer.writerows(
                [[convert(v) for convert, v in zip(converters, row, strict=True)] for row in rows]
            )
            return
        out = []
        for row in rows:
            cells = [
                convert(v) for k, (convert, v) in enumerate(zip(converters, row, strict=True)) if k != at
            ]
            outputs = row[at] or []
            for k in range(self.n_outputs):
                cells += [outputs[k]["system"], outputs[k]["text"]] if k < len(outputs) else ["", ""]
            out.append(cells)
        self.writer.writerows(out)

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
    """Rows gathered per column and written as one row group every ROW_GROUP_ROWS rows."""

    def __init__(self, path: Path, spec: TableSpec, label_type: str):
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.pa = pa
        label = {"string": pa.string(), "int": pa.int64(), "float": pa.float64()}[label_type]
        self.schema = pa.schema(
            [
                pa.field(
                    c.name, _arrow_type(c.kind, pa, label_type=label), metadata={"description": c.description}
                )
                for c in spec.columns
            ],
            metadata={"table": spec.name, "description": spec.description},
        )
        self.json_columns = [k for k, c in enumerate(spec.columns) if c.kind == "json"]
        self.writer = pq.ParquetWriter(path, self.schema, compression="zstd")
        self.columns: list[list] = [[] for _ in spec.columns]
        self.n = 0

    def write(self, rows: Sequence[tuple]) -> None:
        if not rows:
            return
        for k, values in enumerate(zip(*rows, strict=True)):
            self.columns[k].extend(values)
        self.n += len(rows)
        if self.n >= ROW_GROUP_ROWS:
            self.flush()

    def flush(self) -> None:
        if not self.n:
            return
        for k in self.json_columns:
            self.columns[k] = [None if v is None else _json_text(v) for v in self.columns[k]]
        arrays = [
            self.pa.array(values, type=f.type) for values, f in zip(self.columns, self.schema, strict=True)
        ]
        self.writer.write_table(self.pa.Table.from_arrays(arrays, schema=self.schema), row_group_size=self.n)
        self.columns = [[] for _ in self.columns]
        self.n = 0

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
            else:
                handle = (_JsonlFile if fmt == "jsonl" else _CsvFile)(path, self.spec)
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
