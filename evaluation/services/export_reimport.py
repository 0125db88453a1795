"""Loading a Concord export back: a new project with the export's task, criteria, design and settings (from its
``card.json``), then its items and judgments through the platform's own item and judgment imports; an error-span
project's judgments get their answers back from the spans table (``value`` is then the span answer)."""

import json
import tempfile
import zipfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from django.db import transaction

from annotation.models import Project
from annotation.services import item_import, judgment_import, project_create
from annotation.services.judgment_import import JUDGMENT_FIELDS, PAIR_FIELDS
from annotation.task_types import REGISTRY, Span
from audit.services import audit_record
from core.outside_text import OutsideValueError, check_json
from evaluation.export.tables import has_spans

SPAN_KEY = ("item", "system", "criterion", "rater")


class NotAnExport(ValueError):
    """The file is not a Concord export that can be re-imported (the message says why)."""


def _jsonl_members(archive: zipfile.ZipFile, table: str) -> list[str]:
    names = [
        n
        for n in archive.namelist()
        if n == f"data/{table}.jsonl" or (n.startswith(f"data/{table}/") and n.endswith(".jsonl"))
    ]
    if not names:
        raise NotAnExport(f"the archive has no data/{table} JSONL file: export with the jsonl format to re-import")
    return sorted(names)


def _spans_by_judgment(archive: zipfile.ZipFile) -> dict[tuple, list[Span]]:
    """The spans table's rows by their judgment's key (item, system, criterion, rater)."""
    spans = defaultdict(list)
    for member in _jsonl_members(archive, "spans"):
        with archive.open(member) as source:
            for number, line in enumerate(source, start=1):
                try:
                    r = json.loads(line)
                    spans[tuple(r[k] for k in SPAN_KEY)].append(
                        Span(r["side"], r["start"], r["end"], r["severity"], r["category"], r["origin"],
                             r.get("proposal"))
                    )  # fmt: skip
                except (ValueError, KeyError, TypeError) as exc:
                    raise NotAnExport(f"{member}, line {number}: not a span row ({exc})") from exc
    return spans


def _spool(archive: zipfile.ZipFile, members: list[str], keep: tuple[str, ...] | None, answer=None):
    """The members' lines in one seekable temporary file (the imports read their input twice), each
    line cut to the ``keep`` fields when given; ``answer(record)`` gives an error-span judgment's value."""
    spool = tempfile.TemporaryFile()
    for member in members:
        with archive.open(member) as source:
            for line in source:
                if keep is not None and line.strip():
                    try:
                        record = json.loads(line)
                    except ValueError:
                        record = None  # kept as it is: the judgment import reports the line by its number
                    if isinstance(record, dict):
                        # ASCII escapes keep a lone surrogate as text the import can name, not a write error.
                        kept = {k: record[k] for k in keep if k in record}
                        if answer is not None:
                            kept["value"] = answer(record)
                        line = (json.dumps(kept) + "\n").encode()
                spool.write(line)
    spool.seek(0)
    return spool


@transaction.atomic
def export_reimport(
    *,
    archive_path: Path,
    created_by,
    name: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    by=None,
) -> tuple[Project, dict]:
    """Creates a project from an export and imports its items and judgments, all or nothing; ``by`` (who
    loaded it, e.g. a command) is the actor of the imports in the audit log.

    Returns the project and ``{items, judgments}``; raises NotAnExport for a file that is not an
    export and ImportRejected when a line does not import.
    """
    try:
        archive = zipfile.ZipFile(archive_path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise NotAnExport(f"not a zip archive: {exc}") from exc
    with archive:
        try:
            facts = check_json(json.loads(archive.read("card.json")), field="card.json")
        except (KeyError, json.JSONDecodeError) as exc:
            raise NotAnExport("the archive has no readable card.json: is it a Concord export?") from exc
        except OutsideValueError as exc:
            raise NotAnExport(str(exc)) from exc
        p = facts["project"]
        project = project_create(
            created_by=created_by,
            name=name or p["name"],
            task_type=p["task_type"],
            criteria=facts["criteria"],
            instructions=p["instructions"],
            raters_per_item=p["raters_per_item"],
            double_annotation_share=p["double_annotation_share"],
            gold_rate=p["gold_rate"],
            lease_seconds=p["lease_seconds"],
            show_reference=p["show_reference"],
            rankme_modulus=p.get("rankme_modulus"),  # absent from exports made before the setting existed
            task_config=p.get("task_config") or None,
            rating_unit=p.get("rating_unit", "conversation"),
        )
        answer = None
        if has_spans(project.task_type):
            spans, task_type = _spans_by_judgment(archive), REGISTRY[project.task_type]

            def answer(record):
                key = tuple(record.get(k) for k in SPAN_KEY)
                mine = tuple(spans.get(key, ()))
                # the spans table gives each answered proposal by its index already
                return task_type.stored_answer(record.get("value"), mine, {s.proposal: s.proposal for s in mine})

        with _spool(archive, _jsonl_members(archive, "items"), None) as items:
            n_items = item_import(project=project, stream=items, fmt="jsonl", by=by, file_name="data/items")
        # (an export of a type that does not compare pairs has no pair fields)
        with _spool(archive, _jsonl_members(archive, "judgments"), JUDGMENT_FIELDS + PAIR_FIELDS, answer) as judgments:
            n_judgments = judgment_import(
                project=project, stream=judgments, progress=progress, by=by, file_name="data/judgments"
            )
        audit_record(
            actor=by,
            action="export.reimport",
            project=project,
            target=Path(archive_path).name,
            detail={"lead": getattr(created_by, "username", None), "items": n_items, "judgments": n_judgments},
        )
    return project, {"items": n_items, "judgments": n_judgments}
