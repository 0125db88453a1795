"""Import of pairwise votes at arena scale (millions of rows): a file read in batches by pyarrow
(``vote_files``), checked and coded with vectorised compute, and written with PostgreSQL COPY into the compact
``Vote`` table in one transaction: every vote or none, with each bad line named with its column.

Votes are a finished study's, analysed on their own: they are not judgments, so quality control, allocation,
agreement, adjudication and items' rater counts never see them (see ``VoteImport``). On SQLite (the demo) the
rows go through ``bulk_create``: slower, the same result.
"""

import shutil
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from django.conf import settings
from django.db import connection, transaction

from annotation.models import Criterion, Project
from annotation.services.judgment_import import MAX_RATER_NAME
from annotation.task_types import REGISTRY
from annotation.task_types.facts import COMPARED
from audit.services import audit_record
from core.bulk_insert import refresh_planner_statistics, uses_copy
from core.import_records import MAX_REPORTED_ERRORS, ImportRejected, ImportReport
from core.job_queue import queued_job
from core.models import Job
from core.outside_text import text_problem
from core.parsers import spool
from core.services.job import job_start
from evaluation.models import Vote, VoteImport, VoteName

from .vote_files import ARENA, FORMATS, VoteBatch, VoteFile, write_csv

JOB_KIND = "vote_import"
VOTE_IMPORT_JOB = "evaluation.vote_import"
UPLOAD_DIR = "imports"
MAX_SYSTEM_NAME = 200  # as Output.system
MAX_PROMPT_NAME = 255
MAX_SYSTEMS = 2**15 - 1  # codes are PostgreSQL smallints
# Seconds since 1970 up to the end of year 9999 (what a date-time column holds).
MAX_EPOCH_SECONDS = 253_402_300_799
ARENA_WINNERS = {"model_a": Vote.Outcome.A_WINS, "model_b": Vote.Outcome.B_WINS}
TIES = {"tie": Vote.Outcome.TIE, "tie (bothbad)": Vote.Outcome.TIE_BOTH_BAD}
SQLITE_CHUNK = 2000
VOTE_FIELDS = ("batch", "system_a", "system_b", "outcome", "rater", "prompt", "submitted_at", "sampling_probability")
NAME_FIELDS = ("project", "kind", "code", "name")


class VoteImportError(ValueError):
    """The import cannot start (the project takes no votes, an unknown criterion or format)."""


@dataclass(frozen=True)
class VoteImportResult:
    imported: int
    layout: str
    n_systems: int
    batch_id: int

    def as_dict(self) -> dict:
        return {"imported": self.imported, "layout": self.layout, "systems": self.n_systems, "import": self.batch_id}


def detect_vote_format(name: str | None, content_type: str | None) -> str:
    """csv, jsonl or parquet from a file name's ending or a content type; JSON lines when neither says."""
    name, kind = (name or "").lower(), (content_type or "").split(";")[0].strip()
    if name.endswith(".parquet") or kind in ("application/vnd.apache.parquet", "application/x-parquet"):
        return "parquet"
    if name.endswith(".csv") or kind == "text/csv":
        return "csv"
    return "jsonl"


def vote_criterion(project: Project, name: str | None) -> Criterion:
    """The criterion votes go on: the one named, else the project's first. Raises VoteImportError."""
    if name and text_problem(name):
        raise VoteImportError(f"criterion {text_problem(name)}")
    if REGISTRY[project.task_type].results.kind != COMPARED:
        raise VoteImportError(
            f"votes between two systems are imported into projects that compare pairs; this one is "
            f"{REGISTRY[project.task_type].label}"
        )
    criteria = Criterion.objects.filter(project=project).order_by("position", "id")
    criterion = criteria.filter(name=name).first() if name else criteria.first()
    if criterion is None:
        known = ", ".join(repr(c) for c in criteria.values_list("name", flat=True))
        raise VoteImportError(f"criterion {name!r} is not one of {known}" if name else "the project has no criterion")
    return criterion


class _Names:
    """A dictionary of names → codes for one kind, grown as batches bring new names."""

    def __init__(self, project: Project, kind: str, limit: int):
        self.kind, self.limit = kind, limit
        self.codes = dict(VoteName.objects.filter(project=project, kind=kind).values_list("name", "code"))
        self.new: list[tuple[int, str]] = []

    def encode(self, values: pa.Array) -> np.ndarray:
        """Codes of ``values`` (nulls: -1); one dictionary lookup per distinct name of the batch."""
        encoded = pc.dictionary_encode(values)
        names = encoded.dictionary.to_pylist()
        get = self.codes.get
        local = np.array([get(name, -1) for name in names] + [-1], dtype=np.int64)
        for k in np.flatnonzero(local[:-1] < 0):
            local[k] = self.codes[names[k]] = len(self.codes)
            self.new.append((int(local[k]), names[k]))
        return local[encoded.indices.fill_null(len(names)).to_numpy(zero_copy_only=False)]

    def rows(self, project: Project) -> pa.Table:
        """The new names as VoteName rows."""
        codes, names = zip(*self.new, strict=True) if self.new else ((), ())
        n = len(codes)
        return pa.table(
            {
                "project": pa.array(np.full(n, project.id, dtype=np.int64)),
                "kind": pa.array([self.kind] * n, pa.string()),
                "code": pa.array(codes, pa.int32()),
                "name": pa.array(names, pa.string()),
            }
        )

    @property
    def over_limit(self) -> bool:
        return len(self.codes) > self.limit


def _missing(values: pa.Array) -> np.ndarray:
    return pc.fill_null(pc.equal(values, ""), True).to_numpy(zero_copy_only=False)


def _too_long(values: pa.Array, limit: int) -> np.ndarray:
    return pc.fill_null(pc.greater(pc.utf8_length(values), limit), False).to_numpy(zero_copy_only=False)


def _has_nul(values: pa.Array) -> np.ndarray:
    return pc.fill_null(pc.match_substring(values, "\x00"), False).to_numpy(zero_copy_only=False)


def _blank_to_null(values: pa.Array) -> pa.Array:
    return pc.if_else(pc.equal(values, ""), pa.scalar(None, values.type), values)


def _cast_rows(values: pa.Array, to_type) -> tuple[pa.Array, np.ndarray]:
    """``values`` cast, and the rows that could not be (null there): one vectorised cast, row by row only
    where that fails (a bad file)."""
    try:
        return pc.cast(values, to_type), np.zeros(len(values), dtype=bool)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        out, bad = [], np.zeros(len(values), dtype=bool)
        for k, value in enumerate(values.to_pylist()):
            try:
                out.append(pc.cast(pa.array([value], values.type), to_type)[0].as_py())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                out.append(None)
                bad[k] = True
        return pa.array(out, to_type), bad


def _epoch_micros(seconds: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    x = seconds.to_numpy(zero_copy_only=False).astype(float)
    present = ~np.isnan(x) if seconds.null_count == 0 else ~pc.is_null(seconds).to_numpy(zero_copy_only=False)
    with np.errstate(invalid="ignore"):
        bad = present & ~((x >= 0) & (x <= MAX_EPOCH_SECONDS))
    micros = np.where(present & ~bad, np.round(np.nan_to_num(x) * 1e6), 0).astype(np.int64)
    return micros, bad


def _submitted_at(values: pa.Array, layout: str) -> tuple[pa.Array, np.ndarray, str]:
    """Times as UTC microseconds, the bad rows, and what a bad value should have been. Arena: seconds since
    1970 (a number, or its text in a CSV); Concord: ISO 8601, read as UTC without an offset (as judgments)."""
    if pa.types.is_timestamp(values.type):
        micros = values.cast(pa.timestamp("us")).cast(pa.int64())
        return micros.cast(pa.timestamp("us", "UTC")), np.zeros(len(values), dtype=bool), ""
    if layout == ARENA:
        if pa.types.is_string(values.type):
            values, bad_text = _cast_rows(_blank_to_null(values), pa.float64())
        else:
            bad_text = np.zeros(len(values), dtype=bool)
        micros, bad = _epoch_micros(values)
        present = ~pc.is_null(values).to_numpy(zero_copy_only=False)
        out = pa.array(micros, pa.int64(), mask=~present | bad).cast(pa.timestamp("us", "UTC"))
        return out, bad | bad_text, "seconds since 1970-01-01 UTC, up to year 9999"
    values = _blank_to_null(values)
    zoned = pc.fill_null(pc.match_substring_regex(values, r"(Z|[+-]\d\d(:?\d\d)?)$"), False)
    aware, bad_aware = _cast_rows(pc.if_else(zoned, values, pa.scalar(None, pa.string())), pa.timestamp("us", "UTC"))
    naive, bad_naive = _cast_rows(pc.if_else(zoned, pa.scalar(None, pa.string()), values), pa.timestamp("us"))
    naive = naive.cast(pa.int64()).cast(pa.timestamp("us", "UTC"))
    return pc.coalesce(aware, naive), bad_aware | bad_naive, "an ISO 8601 date-time (e.g. 2024-03-01T10:00:00Z)"


class _Checker:
    """Checks and codes one batch at a time; every problem goes to the report with its line and column."""

    def __init__(self, project: Project, source: VoteFile):
        self.source = source
        self.systems = _Names(project, VoteName.Kind.SYSTEM, MAX_SYSTEMS)
        self.raters = _Names(project, VoteName.Kind.RATER, 2**31 - 1)
        self.errors: list[tuple[int, str]] = []
        self.n_bad = 0

    def _flag(self, batch: VoteBatch, bad: np.ndarray, field: str, message: str) -> None:
        rows = np.flatnonzero(bad)
        room = max(0, MAX_REPORTED_ERRORS - len(self.errors))
        self.errors.extend((batch.first_line + int(r), f"{self.source.column(field)}: {message}") for r in rows[:room])
        self.n_bad += len(rows)

    def table(self, batch: VoteBatch, batch_id: int) -> pa.Table | None:
        """The batch's COPY rows (None when it had a bad line)."""
        before = self.n_bad
        cols = batch.columns
        a, b, winner = cols["system_a"], cols["system_b"], cols["winner"]
        for field in ("system_a", "system_b", "rater", "prompt"):
            if field in cols and pa.types.is_string(cols[field].type):
                self._flag(batch, _has_nul(cols[field]), field, text_problem("\x00"))
        for field in ("system_a", "system_b"):
            self._flag(batch, _missing(cols[field]), field, "the system's name is missing")
            self._flag(
                batch,
                _too_long(cols[field], MAX_SYSTEM_NAME),
                field,
                f"a system's name has at most {MAX_SYSTEM_NAME} characters",
            )
        same = pc.fill_null(pc.equal(a, b), False).to_numpy(zero_copy_only=False)
        self._flag(batch, same, "system_b", "the same system as on the other side")
        outcome = self._outcome(a, b, winner)
        self._flag(batch, _missing(winner), "winner", "the winner is missing")
        self._flag(
            batch,
            (outcome < 0) & ~_missing(winner),
            "winner",
            "must be model_a, model_b, tie or tie (bothbad)"
            if self.source.layout == ARENA
            else "must be system_a's or system_b's name, tie or tie (bothbad)",
        )
        n = len(batch)
        rater, prompt = np.full(n, -1, dtype=np.int64), pa.nulls(n, pa.string())
        if "rater" in cols:
            self._flag(
                batch,
                _too_long(cols["rater"], MAX_RATER_NAME),
                "rater",
                f"a rater's name has at most {MAX_RATER_NAME} characters",
            )
            rater = self.raters.encode(_blank_to_null(cols["rater"]))
        if "prompt" in cols:
            self._flag(
                batch,
                _too_long(cols["prompt"], MAX_PROMPT_NAME),
                "prompt",
                f"a prompt id has at most {MAX_PROMPT_NAME} characters",
            )
            prompt = _blank_to_null(cols["prompt"])
        submitted = pa.nulls(n, pa.timestamp("us", "UTC"))
        if "submitted_at" in cols:
            submitted, bad, expected = _submitted_at(cols["submitted_at"], self.source.layout)
            self._flag(batch, bad, "submitted_at", f"must be {expected}")
        probability = pa.nulls(n, pa.float64())
        if "sampling_probability" in cols:
            values = cols["sampling_probability"]
            if pa.types.is_string(values.type):
                values, bad_text = _cast_rows(_blank_to_null(values), pa.float64())
                self._flag(batch, bad_text, "sampling_probability", "must be a number")
            x = values.to_numpy(zero_copy_only=False).astype(float)
            present = ~pc.is_null(values).to_numpy(zero_copy_only=False)
            with np.errstate(invalid="ignore"):
                self._flag(
                    batch,
                    present & ~((x > 0) & (x <= 1)),
                    "sampling_probability",
                    "must be a probability above 0 and at most 1",
                )
            probability = values
        codes_a, codes_b = self.systems.encode(a), self.systems.encode(b)
        if self.systems.over_limit:
            self._flag(batch, np.arange(n) == 0, "system_a", f"a project's votes name at most {MAX_SYSTEMS} systems")
        if self.n_bad > before:
            return None
        return pa.table(
            {
                "batch": pa.array(np.full(n, batch_id, dtype=np.int64)),
                # int32, not int16: pyarrow writes int16 to CSV ten times slower
                "system_a": pa.array(codes_a.astype(np.int32)),
                "system_b": pa.array(codes_b.astype(np.int32)),
                "outcome": pa.array(outcome.astype(np.int32)),
                "rater": pa.array(rater, pa.int32(), mask=rater < 0),
                "prompt": prompt.cast(pa.string()),
                # UTC without the zone: pyarrow writes zoned times to CSV twenty times slower; COPY reads them
                # as UTC (the session's zone is set so).
                "submitted_at": submitted.cast(pa.timestamp("us")),
                "sampling_probability": probability,
            }
        )

    def _outcome(self, a: pa.Array, b: pa.Array, winner: pa.Array) -> np.ndarray:
        def equal(x, y):
            return pc.fill_null(pc.equal(x, y), False).to_numpy(zero_copy_only=False)

        if self.source.layout == ARENA:
            choices = [(equal(winner, name), code) for name, code in ARENA_WINNERS.items()]
        else:
            choices = [(equal(winner, a), Vote.Outcome.A_WINS), (equal(winner, b), Vote.Outcome.B_WINS)]
        choices += [(equal(winner, name), code) for name, code in TIES.items()]
        return np.select([c for c, _ in choices], [int(code) for _, code in choices], default=-1)

    def rejected(self) -> ImportRejected | None:
        """Every problem found, in line order (the first MAX_REPORTED_ERRORS listed, all counted)."""
        if not self.n_bad:
            return None
        report = ImportReport()
        for line, message in sorted(self.errors):
            report.add(line, message)
        report.n_errors = self.n_bad
        return ImportRejected(report)


@contextmanager
def _rows_into(model, fields: tuple[str, ...]):
    """A writer of tables (columns ``fields``, named as the model's) into the model's table, in this transaction.

    On PostgreSQL each table is one COPY, run on a thread of its own while the caller reads and checks the next
    batch: the database's work (most of an import's) overlaps Python's. The thread holds the connection (psycopg's
    lock) only for its COPY, so a query of the caller's meanwhile (a job's progress) waits for it instead of
    deadlocking, as it would inside a COPY the caller holds open. Leaving the block waits for the last COPY."""
    if not uses_copy():
        yield lambda table: _create(model, table)
        return
    quote = connection.ops.quote_name
    columns = ", ".join(quote(model._meta.get_field(f).column) for f in fields)
    sql = f"COPY {quote(model._meta.db_table)} ({columns}) FROM STDIN WITH (FORMAT csv)"
    with connection.cursor() as cursor:
        # times are written as UTC without their zone (see _Checker.table)
        cursor.execute("SET LOCAL TIME ZONE 'UTC'")
    raw = connection.connection
    pending = []

    def copy(data: bytes) -> None:
        with raw.cursor() as cursor, cursor.copy(sql) as stream:
            stream.write(data)

    def write(table: pa.Table) -> None:
        data = write_csv(table.select(list(fields)))
        if pending:
            pending.pop().result()
        pending.append(pool.submit(copy, data))

    with ThreadPoolExecutor(max_workers=1) as pool:
        yield write
        if pending:
            pending.pop().result()


def _create(model, table: pa.Table) -> None:
    """``bulk_create`` of a table's rows: the path of databases without COPY (SQLite, the demo's)."""
    rows = table.to_pylist()
    attnames = [model._meta.get_field(f).attname for f in table.column_names]
    for start in range(0, len(rows), SQLITE_CHUNK):
        chunk = rows[start : start + SQLITE_CHUNK]
        model.objects.bulk_create(
            [model(**{a: _aware(v) for a, v in zip(attnames, row.values(), strict=True)}) for row in chunk]
        )


def _aware(value):
    return value.replace(tzinfo=UTC) if isinstance(value, datetime) else value


def vote_import(
    *,
    project: Project,
    path,
    fmt: str,
    criterion: str | None = None,
    by=None,
    file_name: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> VoteImportResult:
    """Import every vote of the file at ``path`` (``fmt`` csv, jsonl or parquet) on ``criterion`` (default: the
    project's first) or none. Raises VoteImportError before reading, ImportRejected with every bad line (up to
    the report's cap) and its column. ``progress(bytes read, file size)``."""
    if fmt not in FORMATS:
        raise VoteImportError(f"format must be one of {', '.join(FORMATS)}")
    target = vote_criterion(project, criterion)
    file_name = file_name.replace("\x00", "")
    source = VoteFile(path, fmt)
    with transaction.atomic():
        # One import at a time per project: the name codes are handed out from what is stored.
        Project.objects.select_for_update().filter(pk=project.pk).first()
        batch = VoteImport.objects.create(
            project=project,
            criterion=target,
            file_name=file_name[:255],
            layout=source.layout,
            created_by=by if getattr(by, "pk", None) else None,
        )
        checker, total = _Checker(project, source), 0
        with _rows_into(Vote, VOTE_FIELDS) as write:
            for vote_batch in source.batches():
                table = checker.table(vote_batch, batch.id)
                if table is not None and not checker.n_bad:
                    write(table)
                total += len(vote_batch)
                if progress:
                    progress(source.done, source.size)
        if not total:
            checker.errors.append((1, "the file holds no votes"))
            checker.n_bad += 1
        rejected = checker.rejected()
        if rejected:
            raise rejected
        for names in (checker.systems, checker.raters):
            if names.new:
                with _rows_into(VoteName, NAME_FIELDS) as write:
                    write(names.rows(project))
        VoteImport.objects.filter(pk=batch.pk).update(n_votes=total)
        refresh_planner_statistics(Vote)
        audit_record(
            actor=by,
            action="votes.import",
            project=project,
            target=file_name,
            detail={"imported": total, "layout": source.layout, "criterion": target.name},
        )
    return VoteImportResult(total, source.layout, len(checker.systems.codes), batch.id)


def _upload_path(name: str) -> Path:
    return Path(settings.MEDIA_ROOT) / UPLOAD_DIR / name


def vote_import_start(
    *, project: Project, upload, fmt: str, criterion: str | None, created_by, file_name: str = ""
) -> Job:
    """Keeps the uploaded file (a binary stream) under MEDIA_ROOT and starts the import job once the transaction
    commits; poll ``/api/v1/jobs/{id}/``. Raises VoteImportError (nothing kept) when the import cannot start."""
    if fmt not in FORMATS:
        raise VoteImportError(f"format must be one of {', '.join(FORMATS)}")
    vote_criterion(project, criterion)
    path = _upload_path(f"{uuid.uuid4().hex}.{fmt}")
    path.parent.mkdir(parents=True, exist_ok=True)
    with spool(upload) as source, open(path, "wb") as target:
        shutil.copyfileobj(source, target)
    try:
        return job_start(
            kind=JOB_KIND,
            task=queued_job(VOTE_IMPORT_JOB),
            project=project,
            created_by=created_by,
            params={"file": path.name, "format": fmt, "criterion": criterion, "filename": file_name},
        )
    except Exception:
        path.unlink(missing_ok=True)  # the job could not be queued (it is marked failed): nothing will read it
        raise


def vote_import_run(*, job: Job, progress: Callable[[float, float, str], None] | None = None) -> dict:
    """The job's import of its kept file, which is deleted after. A rejected file leaves the error report
    (``{detail, errors: [{line, error}], n_errors}``) in the job's result before the job fails."""
    path = _upload_path(job.params["file"])

    def read(done: int, total: int) -> None:
        progress(done, total, f"{done * 100 // max(total, 1)}% of the file read")

    try:
        result = vote_import(
            project=job.project,
            path=path,
            fmt=job.params["format"],
            criterion=job.params.get("criterion"),
            by=job.created_by,
            file_name=job.params.get("filename", ""),
            progress=read if progress else None,
        )
    except ImportRejected as exc:
        Job.objects.filter(pk=job.pk).update(result=exc.report.as_dict())
        raise
    finally:
        path.unlink(missing_ok=True)
    return result.as_dict()
