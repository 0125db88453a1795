"""A finished error-span study in the TSV layouts WMT publishes (``annotation.error_span_formats``: one row per
error, spans marked in the text or given as offsets) as judgment import lines: one line per (system, segment,
rater), whose value is the error-span answer ``{"spans": [...], "no_error": bool}`` the task type codes.

The segment id names the item (its ``external_id``), the system the output; the project's one criterion is
the judgment's. A ``No-error`` row records a rating without errors. Severities are read case-insensitively
(WMT writes ``Major``, the types ``major``). An error the file gives no position for (WMT's texts-dropped files,
an omission marked nowhere) becomes an empty span at the start of the output: it is scored, and no character
agreement counts it.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from annotation.error_span_formats import LAYOUTS, ErrorRow, ErrorSpanFormatError, read_error_rows
from core.import_records import BadRecord, _checked, _text_lines

NO_ERROR = "no-error"


@dataclass(frozen=True)
class StudyLine:
    """A judgment import line made from the rows of one rating: ``line`` its first row's line, ``span_lines``
    the line of each span in ``record["value"]["spans"]``."""

    line: int
    record: dict | BadRecord
    span_lines: tuple[int, ...] = ()


def detect_layout(header: list[str]) -> str:
    """``offsets`` when the header has span offsets, ``marked`` when it has both texts, else ``offsets`` (rows
    without positions, e.g. WMT's files with the texts dropped)."""
    if {"span_start", "start"} & set(header):
        return "offsets"
    if {"source", "target"} <= set(header):
        return "marked"
    return "offsets"


def study_lines(rows: Iterable[ErrorRow], *, criterion: str) -> list[StudyLine]:
    """Rows grouped per (system, segment, rater), in the order of each group's first row."""
    groups: dict[tuple[str, str, str], list[ErrorRow]] = {}
    for row in rows:
        groups.setdefault((row.system, row.segment, row.rater), []).append(row)
    out = []
    for (system, segment, rater), group in groups.items():
        errors = [r for r in group if r.severity.lower() != NO_ERROR]
        spans = [
            {
                "start": r.start if r.start is not None else 0,
                "end": r.end if r.end is not None else 0,
                "side": r.side or "target",
                "severity": r.severity.lower(),
                "category": r.category,
            }
            for r in errors
        ]
        record = {
            "item": segment,
            "rater": rater,
            "criterion": criterion,
            "system": system,
            "value": {"spans": spans, "no_error": not spans},
        }
        out.append(StudyLine(group[0].line, _checked(record), tuple(r.line for r in errors)))
    return out


def read_study(binary, *, criterion: str, layout: str | None = None) -> list[StudyLine]:
    """The judgment lines of a TSV file (binary, UTF-8); a file that cannot be read gives one BadRecord line per
    problem (every undecodable line, or the reader's first error). ``layout`` None: ``detect_layout``."""
    texts, bad = [], []
    for number, text, problem in _text_lines(binary):
        if problem:
            bad.append(StudyLine(number, BadRecord(problem)))
        texts.append(text or "")
    if bad:
        return bad
    if layout is None:
        layout = detect_layout(texts[0].rstrip("\r\n").split("\t") if texts else [])
    if layout not in LAYOUTS:
        return [StudyLine(1, BadRecord(f"layout must be one of {', '.join(LAYOUTS)}; got {layout!r}"))]
    try:
        rows = read_error_rows(texts, layout=layout)
    except ErrorSpanFormatError as exc:
        return [StudyLine(exc.line, BadRecord(str(exc).removeprefix(f"line {exc.line}, ")))]
    return study_lines(rows, criterion=criterion)
