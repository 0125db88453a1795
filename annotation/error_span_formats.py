"""The TSV layouts WMT publishes error-span annotations in, read into rows with code-point offsets.

One row per error (or a ``No-error`` row for a rating without errors), tab-separated with a header,
no quoting (as WMT's own ``humeval/tools.py`` reads them). Two ways to give the span:

- ``"marked"`` (google/wmt-mqm-human-evaluation): the ``source`` and ``target`` columns carry the
  segment's text with the error between ``<v>`` and ``</v>`` in one of them; the offsets are those
  of the text with the marks removed;
- ``"offsets"``: ``span_start`` / ``span_end`` columns (half-open, code points) and optionally
  ``span_side`` (``target`` or ``source``) and ``target_len`` / ``source_len`` to check them against.

Nothing here touches the database: the import services turn the rows into stored spans.
"""

import csv
from collections.abc import Iterable
from dataclasses import dataclass

OPEN, CLOSE = "<v>", "</v>"
LAYOUTS = ("marked", "offsets")
# each field and the header names it goes by, first match wins
_ALIASES = {
    "system": ("system", "system_id"),
    "doc": ("doc", "doc_id"),
    "segment": ("seg_id", "global_seg_id", "globalSegId", "segment_id"),
    "rater": ("rater", "user_id"),
    "severity": ("severity",),
    "category": ("category",),
    "source": ("source",),
    "target": ("target",),
    "span_side": ("span_side",),
    "span_start": ("span_start", "start"),
    "span_end": ("span_end", "end"),
    "source_len": ("source_len",),
    "target_len": ("target_len",),
}
_REQUIRED = {
    "marked": ("system", "segment", "rater", "severity", "category", "source", "target"),
    "offsets": ("system", "segment", "rater", "severity", "category"),
}


class ErrorSpanFormatError(ValueError):
    """Bad input, naming the line (1 = the header) and the field."""

    def __init__(self, line: int, field: str, message: str):
        super().__init__(f"line {line}, field {field!r}: {message}")
        self.line, self.field = line, field


@dataclass(frozen=True)
class ErrorRow:
    """One error (``start``/``end`` None for an error without a position, e.g. ``No-error`` or an
    omission marked on no text); ``side`` is ``"target"``, ``"source"`` or ``""``; ``source`` and
    ``target`` are the texts without marks when the layout carries them."""

    line: int
    system: str
    doc: str
    segment: str
    rater: str
    severity: str
    category: str
    side: str
    start: int | None
    end: int | None
    source: str | None = None
    target: str | None = None


def strip_span_marks(text: str, *, line: int = 0, field: str = "target") -> tuple[str, int | None, int | None]:
    """``text`` without its ``<v>…</v>`` mark, and the mark's ``[start, end)`` in code points of the
    stripped text (``None, None`` when unmarked). One mark at most, opened before it is closed.

    >>> strip_span_marks("Das ist <v>ein</v> Test")
    ('Das ist ein Test', 8, 11)
    """
    n_open, n_close = text.count(OPEN), text.count(CLOSE)
    if n_open == n_close == 0:
        return text, None, None
    if n_open != 1 or n_close != 1:
        raise ErrorSpanFormatError(line, field, f"expected one {OPEN}…{CLOSE} mark, found {n_open} and {n_close}")
    start = text.index(OPEN)
    close = text.index(CLOSE)
    if close < start:
        raise ErrorSpanFormatError(line, field, f"{CLOSE} comes before {OPEN}")
    inner = text[start + len(OPEN) : close]
    return text[:start] + inner + text[close + len(CLOSE) :], start, start + len(inner)


def mark_span(text: str, start: int, end: int) -> str:
    """``text`` with ``<v>…</v>`` around ``[start, end)`` (code points), the inverse of :func:`strip_span_marks`.

    >>> mark_span("Das ist ein Test", 8, 11)
    'Das ist <v>ein</v> Test'
    """
    if not 0 <= start <= end <= len(text):
        raise ValueError(f"[{start}, {end}) is not within a text of {len(text)} code points")
    return f"{text[:start]}{OPEN}{text[start:end]}{CLOSE}{text[end:]}"


def read_error_rows(lines: Iterable[str], *, layout: str = "marked") -> list[ErrorRow]:
    """Rows of a WMT error-span TSV (see the module for the layouts).

    Raises
    ------
    ErrorSpanFormatError
        A missing column (line 1), a row with the wrong number of fields, an offset that is not a
        whole number, a span outside its text or reversed, an unbalanced mark, marks in both texts.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}; got {layout!r}")
    reader = _rows(csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))
    header = next(reader, None)
    if header is None:
        raise ErrorSpanFormatError(1, "header", "the file is empty")
    index = {}
    for key, names in _ALIASES.items():
        found = next((header.index(n) for n in names if n in header), None)
        if found is not None:
            index[key] = found
    for key in _REQUIRED[layout]:
        if key not in index:
            raise ErrorSpanFormatError(1, key, f"missing column (one of {', '.join(_ALIASES[key])})")
    if layout == "offsets" and ("span_start" in index) != ("span_end" in index):
        raise ErrorSpanFormatError(1, "span_end" if "span_start" in index else "span_start", "missing column")
    rows = []
    for number, fields in enumerate(reader, start=2):
        if not fields:
            continue
        if len(fields) != len(header):
            raise ErrorSpanFormatError(number, "row", f"{len(fields)} fields where the header has {len(header)}")

        def get(key, fields=fields):
            return fields[index[key]] if key in index else ""

        if layout == "marked":
            rows.append(_marked_row(number, get))
        else:
            rows.append(_offsets_row(number, get))
    return rows


def _rows(reader):
    """The reader's rows; a row the csv module cannot split (a lone carriage return in a field) is named."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ErrorSpanFormatError(reader.line_num, "row", f"unreadable row ({exc})") from None


def _marked_row(number: int, get) -> ErrorRow:
    source, s_start, s_end = strip_span_marks(get("source"), line=number, field="source")
    target, t_start, t_end = strip_span_marks(get("target"), line=number, field="target")
    if s_start is not None and t_start is not None:
        raise ErrorSpanFormatError(number, "target", "both the source and the target carry a mark")
    side, start, end = ("source", s_start, s_end) if s_start is not None else ("target", t_start, t_end)
    return ErrorRow(
        number,
        get("system"),
        get("doc"),
        get("segment"),
        get("rater"),
        get("severity"),
        get("category"),
        side if start is not None else "",
        start,
        end,
        source,
        target,
    )


def _offsets_row(number: int, get) -> ErrorRow:
    raw_start, raw_end = get("span_start"), get("span_end")
    side = get("span_side") or ("target" if raw_start else "")
    if side not in ("", "target", "source"):
        raise ErrorSpanFormatError(number, "span_side", f"must be target or source, got {side!r}")
    if raw_start == raw_end == "":
        start = end = None
    else:
        start, end = _whole(number, "span_start", raw_start), _whole(number, "span_end", raw_end)
        if not 0 <= start <= end:
            raise ErrorSpanFormatError(number, "span_end", f"[{start}, {end}) is not a span")
        raw_len = get(f"{side}_len")
        if raw_len and end > _whole(number, f"{side}_len", raw_len):
            raise ErrorSpanFormatError(number, "span_end", f"{end} is past the {side}'s {raw_len} code points")
    return ErrorRow(
        number, get("system"), get("doc"), get("segment"), get("rater"), get("severity"), get("category"),
        side if start is not None else "", start, end,
    )  # fmt: skip


def _whole(number: int, field: str, raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise ErrorSpanFormatError(number, field, f"{raw!r} is not a whole number") from None
