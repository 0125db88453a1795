"""Streaming readers for import files: JSONL or CSV records with their line numbers, and the
all-or-nothing error report they feed."""

import codecs
import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from core.outside_text import OutsideValueError, check_json

# Every bad line is collected so the report is complete; past this many, only the count grows.
MAX_REPORTED_ERRORS = 1000


@dataclass
class ImportReport:
    errors: list[tuple[int, str]] = field(default_factory=list)
    n_errors: int = 0

    def add(self, line: int, message: str) -> None:
        self.n_errors += 1
        if len(self.errors) < MAX_REPORTED_ERRORS:
            self.errors.append((line, message))

    def as_dict(self) -> dict:
        return {
            "detail": f"{self.n_errors} bad line{'s' if self.n_errors != 1 else ''}; nothing was imported.",
            "errors": [{"line": line, "error": message} for line, message in self.errors],
            "n_errors": self.n_errors,
        }


class ImportRejected(Exception):
    """The file had bad lines; nothing was written. ``report`` lists every one (up to the cap)."""

    def __init__(self, report: ImportReport):
        self.report = report
        first = "; ".join(f"line {line}: {msg}" for line, msg in report.errors[:3])
        super().__init__(f"{report.n_errors} bad lines, e.g. {first}")


class BadRecord(ValueError):
    """A line that could not be read as a record at all (bad JSON, bad encoding, not an object)."""


def _checked(record: dict) -> dict | BadRecord:
    try:
        return check_json(record)
    except OutsideValueError as exc:
        return BadRecord(str(exc))


def detect_format(name: str | None, content_type: str | None) -> str:
    if (name or "").lower().endswith(".csv") or (content_type or "").split(";")[0].strip() == "text/csv":
        return "csv"
    return "jsonl"


def is_tab_separated(name: str | None, content_type: str | None) -> bool:
    """A TSV upload (judgment files: WMT's error-span layouts), by its name or content type."""
    return (name or "").lower().endswith(".tsv") or (content_type or "").split(";")[0].strip() in (
        "text/tab-separated-values",
        "text/tsv",
    )


def _text_lines(binary) -> Iterator[tuple[int, str | None, str | None]]:
    """(line number, text, decode error) per physical line; a bad byte sequence spoils only its line."""
    decoder_factory = codecs.getincrementaldecoder("utf-8")
    for number, raw in enumerate(binary, start=1):
        try:
            text = decoder_factory().decode(raw, final=True)
        except UnicodeDecodeError as exc:
            yield number, None, f"not valid UTF-8 text ({exc.reason} at byte {exc.start})"
            continue
        if number == 1:
            text = text.removeprefix("\ufeff")
        yield number, text, None


def jsonl_records(binary) -> Iterator[tuple[int, dict | BadRecord]]:
    for number, text, problem in _text_lines(binary):
        if text is None:  # not UTF-8: problem says where
            yield number, BadRecord(str(problem))
            continue
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            yield number, BadRecord(f"bad JSON: {exc.msg}")
            continue
        except RecursionError:
            yield number, BadRecord("bad JSON: nested too deeply")
            continue
        except ValueError:  # Python's limit on the digits of an integer (sys.get_int_max_str_digits)
            yield number, BadRecord("bad JSON: a number has too many digits")
            continue
        if not isinstance(record, dict):
            yield number, BadRecord(f"a line must hold one JSON object, got {type(record).__name__}")
            continue
        yield number, _checked(record)


def csv_records(binary) -> Iterator[tuple[int, dict | BadRecord]]:
    """Rows as dicts keyed by the header; the line number is where the row starts (header = line 1)."""
    text = io.TextIOWrapper(binary, encoding="utf-8-sig", errors="strict", newline="")
    try:
        yield from _csv_rows(csv.reader(text))
    finally:
        text.detach()  # the caller owns the binary stream and reads it again


def _csv_rows(reader) -> Iterator[tuple[int, dict | BadRecord]]:
    try:
        header = next(reader)
    except StopIteration:
        return
    except (UnicodeDecodeError, csv.Error) as exc:
        yield 1, BadRecord(f"unreadable CSV header: {exc}")
        return
    header = [h.strip() for h in header]
    start = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except UnicodeDecodeError as exc:
            yield start, BadRecord(f"not valid UTF-8 text ({exc.reason}); reading stopped here")
            return
        except csv.Error as exc:
            yield start, BadRecord(f"bad CSV: {exc}")
            start = reader.line_num + 1
            continue
        if any(cell.strip() for cell in row):
            if len(row) != len(header):
                yield start, BadRecord(f"{len(row)} cells but the header has {len(header)} columns")
            else:
                yield start, _checked(dict(zip(header, row, strict=True)))
        start = reader.line_num + 1


def records(binary, fmt: str) -> Iterator[tuple[int, dict | BadRecord]]:
    if fmt not in ("jsonl", "csv"):
        raise ValueError(f"unknown import format {fmt!r}; use 'jsonl' or 'csv'")
    return (csv_records if fmt == "csv" else jsonl_records)(binary)
