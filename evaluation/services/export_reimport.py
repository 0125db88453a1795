"""Loading a Concord export back: a new project with the export's task, criteria and design (from its
``card.json``), then its items and judgments through the platform's own item and judgment imports."""

import json
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from django.db import transaction

from annotation.models import Project
from annotation.services import item_import, judgment_import, project_create
from annotation.services.judgment_import import JUDGMENT_FIELDS
from audit.services import audit_record
from core.outside_text import OutsideValueError, check_json


class NotAnExport(ValueError):
    """The file is not a Concord export that can be re-imported (the message says why)."""


def _jsonl_members(archive: zipfile.ZipFile, table: str) -> list[str]:
    names = [
        n
        for n in archive.namelist()
        if n == f"data/{table}.jsonl" or (n.startswith(f"data/{table}/") and n.endswith(".jsonl"))
    ]
    if not names:
        raise NotAnExport(
            f"the archive has no data/{table} JSONL file: export with the jsonl format to re-import"
        )
    return sorted(names)


def _spool(archive: zipfile.ZipFile, members: list[str], keep: tuple[str, ...] | None):
    """The members' lines in one seekable temporary file (the imports read their input twice), each
    line cut to the ``keep`` fields when given."""
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
                        line = (json.dumps({k: record[k] for k in keep if k in record}) + "\n").encode()
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
        )
        with _spool(archive, _jsonl_members(archive, "items"), None) as items:
            n_items = item_import(project=project, stream=items, fmt="jsonl", by=by, file_name="data/items")
        with _spool(archive, _jsonl_members(archive, "judgments"), JUDGMENT_FIELDS) as judgments:
            n_judgments = judgment_import(project=project, stream=judgments, progress=progress, by=by,
                                          file_name="data/judgments")
        audit_record(actor=by, action="export.reimport", project=project, target=Path(archive_path).name,
                     detail={"lead": getattr(created_by, "username", None), "items": n_items,
                             "judgments": n_judgments})
    return project, {"items": n_items, "judgments": n_judgments}
