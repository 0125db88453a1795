"""A dataset export split into parts that Celery workers write side by side, as a chord: each part writes the
files of some tables (evaluation.services.export_tables), or of runs of the judgments' subgroups in an export
split by subgroup, into the export's work directory under MEDIA_ROOT, which the workers share; the chord's last
step writes the data card and the zip from them, renames the zip into place and finishes the job. A failed part
fails the job and removes the work directory: no zip, no files.

An export in one part (``CONCORD_EXPORT_PARTS=1``) is the export in one task (export_run), unchanged.

Every part reads the scope fixed when the export started (the judgment and item ids it goes up to, the raters'
names, the excluded raters, the adjudicated answers), which the first step writes to the work directory: a
judgment submitted while the parts run is in no table and not on the card, whichever part starts last. (A revision
meanwhile marks the judgment it replaces no longer current, so the parts after it leave out both, as the tables
written after it in one task do; the card's audit-log counts are read when the card is written.) In eager mode
(no broker) the chord runs its parts one after the other in the process that queued it.
"""

import json
import shutil
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

from celery import chord
from django.conf import settings

from core.job_queue import queued_job
from core.models import Job
from core.services.job import JobProgress, job_advance, job_failed, job_run, job_running, job_succeeded
from evaluation.export.writers import WrittenFile
from evaluation.models import Export
from evaluation.selectors.export import ExportScope, export_sizes, rater_rows

from .export import (
    ExportOptions,
    ExportProgress,
    export_agreement_ready,
    export_card_readings,
    export_options_scope,
    export_publish,
    export_run,
    export_table_options,
    export_zip_path,
    export_zip_write,
)
from .export_tables import PIECEWISE, TABLE_ORDER, TableOptions, table_write

PART_JOB = "evaluation.export_part_job"
FINISH_JOB = "evaluation.export_finish_job"
DISCARD_JOB = "evaluation.export_discard_job"
SCOPE_FILE = "scope.json"
# The job's progress once every part has written its tables: the card and the zip take the rest.
TABLES_DONE = 0.95
# What each table costs to write, in judgment rows per item (items, scores) or per judgment (the others), to
# balance the parts. BENCHMARKS.md "Export" (1M judgments, 83,334 items): the items took 8 s, the judgments,
# scores and raters 19 s; an item carries its texts and outputs, and has a scores row per output and criterion.
ROW_COST = {"items": 6, "judgments": 1, "scores": 2, "spans": 1, "raters": 0, "votes": 1}


def export_dispatch(*, job_id: int) -> dict | None:
    """Runs an export job: in this task with one part (and returns its result), else queued as a chord of
    parts whose last step finishes the job (``export_parts_finish``) or whose failure fails it
    (``export_parts_discard``). If queuing fails, or a part fails in eager mode, the job fails here and the
    error propagates."""
    if settings.CONCORD_EXPORT_PARTS <= 1:
        return job_run(job_id, lambda job, progress: export_run(export_id=job.params["export_id"], progress=progress))
    try:
        plan = export_parts_start(job_id=job_id)
        header = [
            queued_job(PART_JOB).si(job_id, plan.token, [asdict(piece) for piece in pieces], plan.share)
            for pieces in plan.parts
        ]
        # the error callback runs once every part has returned, so no part writes a file after it
        body = queued_job(FINISH_JOB).s(job_id, plan.token).on_error(queued_job(DISCARD_JOB).si(job_id))
        chord(header, body).apply_async()
    except Exception as exc:
        export_parts_discard(job_id=job_id, exc=exc)
        raise
    return None


@dataclass(frozen=True)
class TablePiece:
    """What a part writes of a table: all of it, or (PIECEWISE, in an export split by subgroup) the rows of a
    contiguous run of its subgroups, the ``order``-th run."""

    table: str
    subgroups: tuple[str, ...] | None = None
    order: int = 0


@dataclass(frozen=True)
class ExportParts:
    """The parts of one export job: each writes ``parts[k]``'s pieces into the work directory named by ``token``
    (export_work_directory), then adds ``share`` to the job's progress."""

    token: str
    parts: tuple[tuple[TablePiece, ...], ...]
    share: float


def export_parts_start(*, job_id: int) -> ExportParts:
    """Marks the job running, computes the agreement if the export needs it and fixes the export's scope in a
    work directory of its own (a redelivered first step makes another, so two chords never share files)."""
    export = _export_of(job_id)
    job_running(job_id)
    progress = JobProgress(job_id)
    try:
        options = ExportOptions.from_dict(export.options).checked()
        recompute = export_agreement_ready(project=export.project, options=options, report=ExportProgress(progress))
        scope = export_options_scope(export.project, options)
        sizes = export_sizes(scope)
        tables = export_table_options(scope, options=options, sizes=sizes)
        token = uuid.uuid4().hex[:12]
        work = export_work_directory(export, token)
        work.mkdir(parents=True)
        _scope_write(work, scope=scope, tables=tables, recompute=recompute)
        parts = export_parts_plan(
            tables.tables,
            items_by_subgroup=sizes.items_by_subgroup,
            n_judgments=sizes.n_judgments,
            n_parts=settings.CONCORD_EXPORT_PARTS,
            by_subgroup=scope.by_subgroup,
        )
        start = 0.3 if recompute else 0.0
        progress(start, 1.0, "writing the tables")
    finally:
        progress.close()
    return ExportParts(token=token, parts=tuple(parts), share=(TABLES_DONE - start) / len(parts))


def export_parts_plan(
    tables: tuple[str, ...], *, items_by_subgroup: dict[str, int], n_judgments: int, n_parts: int, by_subgroup: bool
) -> list[tuple[TablePiece, ...]]:
    """The tables grouped into at most ``n_parts`` parts of about equal cost (the costliest piece first, each to
    the part with the least so far), each part's pieces in the zip's order; no empty part. In an export split by
    subgroup, a PIECEWISE table that would cost more than a part's share is cut into runs of subgroups (in the
    order of ``items_by_subgroup``), costed by their items."""
    n_items = sum(items_by_subgroup.values())
    rows = {"items": n_items, "scores": n_items, "raters": 0}  # spans and votes: about one per judgment
    cost = {TablePiece(name): float(ROW_COST[name] * rows.get(name, n_judgments)) for name in tables}
    whole = TablePiece(PIECEWISE)
    if by_subgroup and whole in cost and cost[whole] * n_parts > sum(cost.values()):
        runs = _subgroup_runs(items_by_subgroup, n_parts)
        if len(runs) > 1:
            share = cost.pop(whole) / max(n_items, 1)
            for k, run in enumerate(runs):
                cost[TablePiece(PIECEWISE, run, k)] = share * sum(items_by_subgroup[s] for s in run)
    parts: list[list[TablePiece]] = [[] for _ in range(min(n_parts, len(cost)))]
    load = [0.0] * len(parts)
    for piece in sorted(cost, key=lambda p: (-cost[p], TABLE_ORDER.index(p.table), p.order)):
        k = load.index(min(load))
        parts[k].append(piece)
        load[k] += cost[piece]
    return [tuple(sorted(part, key=lambda p: (TABLE_ORDER.index(p.table), p.order))) for part in parts if part]


def _subgroup_runs(sizes: dict[str, int], n_runs: int) -> list[tuple[str, ...]]:
    """At most ``n_runs`` contiguous runs of the subgroups (in their order) of about equal size: a run ends before
    the subgroup that would take it further past its share than it falls short."""
    total, done = sum(sizes.values()), 0
    runs: list[tuple[str, ...]] = []
    run: list[str] = []
    for subgroup, n in sizes.items():
        target = total * (len(runs) + 1) / n_runs
        if run and len(runs) < n_runs - 1 and done + n - target > target - done:
            runs.append(tuple(run))
            run = []
        run.append(subgroup)
        done += n
    return runs + [tuple(run)] if run else runs


def export_work_directory(export: Export, token: str) -> Path:
    """A directory the parts of an export write its tables' files to, beside its zip under MEDIA_ROOT."""
    return Path(settings.MEDIA_ROOT) / export_zip_path(export).parent / f".export-{export.id}-{token}"


def export_part_write(*, job_id: int, token: str, pieces: list[dict], share: float) -> list[dict]:
    """Writes the files of ``pieces`` (TablePiece's fields) into the export's work directory named by ``token``
    (which must exist: a part that runs after its export was discarded fails) and adds ``share`` to the job's
    progress; returns the files (WrittenFile's fields, the path in the directory), each with its piece's order."""
    export = _export_of(job_id)
    directory = export_work_directory(export, token)
    scope, options, _ = _scope_read(directory, export)
    written = []
    for piece in pieces:
        subgroups = None if piece["subgroups"] is None else tuple(piece["subgroups"])
        files = table_write(piece["table"], scope=scope, options=options, work=directory,
                            raters=lambda: rater_rows(scope), subgroups=subgroups)  # fmt: skip
        written += [{"file": {**asdict(f), "path": f.path.name}, "order": piece["order"]} for f in files]
    job_advance(job_id, share)
    return written


def export_parts_finish(*, job_id: int, token: str, written: list[list[dict]]) -> dict:
    """The chord's last step: writes the card and the zip of the files the parts wrote (in the order the export
    in one task lists them), renames it into place and finishes the export and its job. The work directory goes
    whatever happens; a failure fails the job."""
    export = _export_of(job_id)
    directory = export_work_directory(export, token)
    partial = directory.with_suffix(".zip.part")
    try:
        scope, tables, recompute = _scope_read(directory, export)
        # a table's pieces in their order, and each piece's files in theirs (the sort is stable)
        done = sorted(
            (w for part in written for w in part), key=lambda w: (TABLE_ORDER.index(w["file"]["table"]), w["order"])
        )
        files = [WrittenFile(**{**w["file"], "path": directory / w["file"]["path"]}) for w in done]
        readings = export_card_readings(export.project, scope, export_sizes(scope))
        summary = export_zip_write(
            project=export.project,
            options=ExportOptions.from_dict(export.options).checked(),
            scope=scope,
            card_readings=lambda: readings,
            files=files,
            item_spec=tables.item_spec,
            work=directory,
            destination=partial,
            recompute=recompute,
            report=ExportProgress(None),
        )
        result = export_publish(export=export, partial=partial, summary=summary)
    except Exception as exc:
        export_parts_discard(job_id=job_id, exc=exc)
        raise
    finally:
        partial.unlink(missing_ok=True)
    job_succeeded(job_id, result)
    return result


def export_parts_discard(*, job_id: int, exc: BaseException | None = None) -> None:
    """Removes a failed export's work directories and half-written zip and fails its job with ``exc`` (None: keeps
    the error a failed part recorded); a job that succeeded (a second delivery of a part failing) stays so."""
    export = _export_of(job_id)
    pattern = export_work_directory(export, "*")
    for path in pattern.parent.glob(pattern.name):  # its work directories and their zips (.zip.part)
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    state = Job.objects.values_list("state", flat=True).get(pk=job_id)
    if state != Job.State.SUCCESS and (exc is not None or state != Job.State.FAILURE):
        job_failed(job_id, exc or RuntimeError("a part of the export failed"))


def _export_of(job_id: int) -> Export:
    export_id = Job.objects.values_list("params", flat=True).get(pk=job_id)["export_id"]
    return Export.objects.select_related("project").get(pk=export_id)


def _scope_write(work: Path, *, scope: ExportScope, tables: TableOptions, recompute: bool) -> None:
    cut = {
        "max_judgment_id": scope.max_judgment_id,
        "max_item_id": scope.max_item_id,
        "rater_names": sorted(scope.rater_names.items()),
        "excluded": sorted(scope.excluded),
        "include_excluded": scope.include_excluded,
        "by_subgroup": scope.by_subgroup,
        "adjudicated": [[*key, value] for key, value in scope.adjudicated.items()],
        "adjudication": scope.adjudication,
    }
    state = {"scope": cut, "tables": asdict(tables), "agreement_recomputed": recompute}
    (work / SCOPE_FILE).write_text(json.dumps(state, ensure_ascii=False))


def _scope_read(work: Path, export: Export) -> tuple[ExportScope, TableOptions, bool]:
    state = json.loads((work / SCOPE_FILE).read_text())
    cut = state["scope"]
    scope = ExportScope(
        project=export.project,
        max_judgment_id=cut["max_judgment_id"],
        max_item_id=cut["max_item_id"],
        rater_names={rater: name for rater, name in cut["rater_names"]},
        excluded=frozenset(cut["excluded"]),
        include_excluded=cut["include_excluded"],
        by_subgroup=cut["by_subgroup"],
        adjudicated={tuple(row[:4]): row[4] for row in cut["adjudicated"]},
        adjudication=cut["adjudication"],
    )
    tables = state["tables"]
    options = TableOptions(**{**tables, "formats": tuple(tables["formats"]), "tables": tuple(tables["tables"])})
    return scope, options, state["agreement_recomputed"]
