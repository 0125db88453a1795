"""The item import's error report as the upload page shows it: line, field, problem."""

import re

from annotation.chat_layouts import LAYOUT_FIELDS
from annotation.services.item_import import ITEM_FIELDS

# The import names the field at the start of its message ("outputs[2].system must be ...", "gold.fluency ...",
# "duplicate external_id ...", "unknown field 'x'", "column meta holds bad JSON", "output_3 and system_3 ...").
_FIELD = re.compile(r"^(?:duplicate |unknown field |column )?'?([A-Za-z_][\w-]*(?:\[\d+\])?(?:\.[\w-]+)*)")
_CSV_COLUMN = re.compile(r"^(?:output|system)_\d+$")


def _field(message: str) -> str:
    match = _FIELD.match(message)
    if not match:
        return ""
    name = match.group(1)
    root = re.split(r"[.\[]", name, maxsplit=1)[0]
    if message.startswith("unknown field ") or root in ITEM_FIELDS or root in LAYOUT_FIELDS or _CSV_COLUMN.match(root):
        return name
    return ""


def import_error_rows(report: dict) -> list[dict]:
    """``{line, field, problem}`` per reported line of an ImportReport.as_dict(); field is "" when the
    problem concerns the whole line (bad JSON, wrong cell count)."""
    return [
        {"line": error["line"], "field": _field(error["error"]), "problem": error["error"]}
        for error in report.get("errors", [])
    ]


def import_error_report(report: dict) -> dict:
    """What the upload page and its job show of a refused import: the summary, how many lines were refused
    and their rows."""
    return {"detail": report["detail"], "n_errors": report["n_errors"], "errors": import_error_rows(report)}
