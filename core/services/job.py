"""Background jobs users start and watch: create, enqueue after commit, run with progress, finish."""

import logging
from collections.abc import Callable

from django.db import DEFAULT_DB_ALIAS, OperationalError, connections, models, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import F, Value
from django.db.models.functions import Least
from django.utils import timezone

from core.models import Job

logger = logging.getLogger(__name__)


def job_start(
    *, kind: str, task, project: models.Model | None = None, created_by=None, params: dict | None = None
) -> Job:
    """Records a pending job and sends ``task.delay(job.id)`` once the transaction commits.

    A broker that is configured but down makes the send fail loudly: the job is marked failed with the
    reason and the error propagates (no silent in-process fallback).
    """
    job = Job.objects.create(kind=kind, project=project, created_by=created_by, params=params or {})

    def send():
        try:
            result = task.delay(job.id)
        except Exception as exc:
            if task.app.conf.task_always_eager:
                # Eager mode ran the job in this request: job_run recorded the failure on the Job,
                # which the client reads; the request that started it still succeeds.
                logger.warning("eager job %s failed: %s", job.pk, exc)
                return
            Job.objects.filter(pk=job.pk).update(
                state=Job.State.FAILURE, error=f"could not queue the job: {exc}", finished_at=timezone.now()
            )
            raise
        if result is not None and getattr(result, "id", None):
            Job.objects.filter(pk=job.pk, celery_id="").update(celery_id=result.id)

    transaction.on_commit(send)
    return job


class JobProgress:
    """Progress reporter handed to a service; writes at most every 2% to spare the database.

    Services often write in one transaction, and progress written through it would stay invisible to the
    page polling the job until the very end: on PostgreSQL it goes through a connection of its own, in
    autocommit, opened at the first write. It goes through the job's own connection instead where that
    connection cannot write (SQLite allows one writer at a time) or cannot see the job row (created in a
    transaction still open, as in a test), and from the first time it finds the row locked by the job's
    transaction.
    """

    def __init__(self, job_id: int):
        self.job_id = job_id
        self.last = 0.0
        self.apart = connections[DEFAULT_DB_ALIAS].vendor == "postgresql"
        self.connection: BaseDatabaseWrapper | None = None

    def __call__(self, done: float, total: float, message: str = "") -> None:
        share = min(1.0, done / total) if total else 1.0
        if share - self.last < 0.02 and share < 1.0:
            return
        self.last = share
        if not (self.apart and self._write_apart(share, message[:500])):
            Job.objects.filter(pk=self.job_id).update(progress=share, message=message[:500])

    def _write_apart(self, share: float, message: str) -> bool:
        connection = self.connection
        if connection is None:
            connection = self.connection = connections.create_connection(DEFAULT_DB_ALIAS)
            with connection.cursor() as cursor:
                cursor.execute("SET lock_timeout = '1s'")
        table = connection.ops.quote_name(Job._meta.db_table)
        try:
            with connection.cursor() as cursor:
                cursor.execute(
                    f"UPDATE {table} SET progress = %s, message = %s WHERE id = %s", [share, message, self.job_id]
                )
                return cursor.rowcount == 1
        except OperationalError:  # the job's own transaction holds the row: waiting would never end
            self.apart = False
            return False

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


def job_running(job_id: int) -> None:
    Job.objects.filter(pk=job_id).update(state=Job.State.RUNNING, started_at=timezone.now(), error="")


def job_failed(job_id: int, exc: BaseException) -> None:
    Job.objects.filter(pk=job_id).update(
        state=Job.State.FAILURE, error=f"{type(exc).__name__}: {exc}", finished_at=timezone.now()
    )


def job_succeeded(job_id: int, result: dict) -> None:
    Job.objects.filter(pk=job_id).update(
        state=Job.State.SUCCESS, progress=1.0, result=result, finished_at=timezone.now()
    )


def job_advance(job_id: int, share: float) -> None:
    """Adds ``share`` to the job's progress, in one statement: parts of a job running side by side each add
    theirs."""
    Job.objects.filter(pk=job_id).update(progress=Least(F("progress") + share, Value(1.0)))


def job_run(job_id: int, work: Callable[[Job, JobProgress], dict]) -> dict:
    """Runs ``work(job, progress)`` for a job and records success (with its result dict) or failure.

    Exceptions are recorded and re-raised so Celery sees them too.
    """
    job = Job.objects.get(pk=job_id)
    job_running(job_id)
    progress = JobProgress(job_id)
    try:
        result = work(job, progress) or {}
    except Exception as exc:
        logger.exception("job %s (%s) failed", job_id, job.kind)
        job_failed(job_id, exc)
        raise
    finally:
        progress.close()
    job_succeeded(job_id, result)
    return result
