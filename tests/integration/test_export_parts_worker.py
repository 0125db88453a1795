"""An export job split into parts runs as a Celery chord on a real worker, through MEDIA_ROOT as the workers share
it: the zip is the export in one task's, and a part that fails on the worker leaves a failed job, no zip and no
work directory.

The session's worker (tests/integration/conftest.py) runs with the test settings' eager Celery, so a chord it
queues itself would run inside the task that queues it: this module's worker sends what it queues through the
broker, to its own queue, as a deployed worker does."""

import json
import shutil
import uuid
from dataclasses import asdict
from pathlib import Path

import pytest
from celery import chord
from django.conf import settings

from agreement.services import snapshot_compute_for_project
from core.job_queue import queued_job
from core.models import Job
from evaluation.models import Export
from evaluation.services import ExportOptions, export_start, export_write
from evaluation.services.export import EXPORT_KIND, export_path, export_zip_path
from evaluation.services.export_parts import (
    DISCARD_JOB,
    FINISH_JOB,
    PART_JOB,
    export_parts_start,
    export_work_directory,
)
from tests.evaluation.export.studies import likert_study, read_zip
from tests.integration.conftest import Worker, _on_the_worker_broker, worker_database_url
from tests.integration.test_agreement_recompute_worker import job_state, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
OPTIONS = ExportOptions(split="subgroup", license="cc-by-4.0")


@pytest.fixture(scope="module")
def _queuing_worker(django_db_setup, django_db_blocker):
    queue = f"concord-test-{uuid.uuid4().hex[:8]}"
    worker = Worker(worker_database_url(django_db_blocker), queue)
    worker.env |= {"CELERY_TASK_ALWAYS_EAGER": "false", "CELERY_TASK_DEFAULT_QUEUE": queue}
    with _on_the_worker_broker(queue):
        worker.start()
    yield worker
    worker.stop()


@pytest.fixture
def queuing_worker(_queuing_worker):
    """A worker whose own jobs queue their chords through the broker; this test's jobs are sent to it."""
    with _on_the_worker_broker(_queuing_worker.queue):
        yield _queuing_worker


@pytest.fixture
def study(lead):
    project = likert_study(lead, n_items=30)
    snapshot_compute_for_project(project_id=project.id)
    yield project
    shutil.rmtree(Path(settings.MEDIA_ROOT) / f"exports/project-{project.id}", ignore_errors=True)


def without_time(files: dict[str, bytes]) -> dict[str, bytes]:
    manifest = json.loads(files["export.json"])
    del manifest["generated_at"]
    return {**files, "export.json": json.dumps(manifest).encode()}


def test_the_worker_writes_the_parts_as_a_chord_and_the_zip_is_the_one_task_export(
    study, lead, tmp_path, queuing_worker
):
    assert settings.CONCORD_EXPORT_PARTS == 2  # the worker's too: neither sets it
    export = export_start(project=study, options=OPTIONS, created_by=lead)

    wait_for(lambda: job_state(export.job_id) in ("success", "failure"), 180, "the export")
    job = Job.objects.get(pk=export.job_id)
    assert (job.state, job.progress, job.error) == ("success", 1.0, "")
    assert job.celery_id  # through the broker
    export.refresh_from_db()
    one_task = tmp_path / "one-task.zip"
    export_write(project=study, options=OPTIONS, destination=one_task)
    assert without_time(read_zip(export_path(export))) == without_time(read_zip(one_task))
    assert sorted(p.name for p in export_path(export).parent.iterdir()) == [f"export-{export.id}.zip"]


def test_a_part_failing_on_the_worker_fails_the_job_and_leaves_no_zip_and_no_work_directory(
    study, lead, queuing_worker
):
    export = Export.objects.create(project=study, created_by=lead, options=asdict(OPTIONS.checked()))
    job = Job.objects.create(kind=EXPORT_KIND, project=study, params={"export_id": export.id})
    plan = export_parts_start(job_id=job.id)
    # split by subgroup, the judgments outweigh a part: they are written in two runs of subgroups
    assert [[(p.table, p.subgroups) for p in part] for part in plan.parts] == [
        [("judgments", ("news",)), ("scores", None), ("raters", None)],
        [("items", None), ("judgments", ("", "dialogue"))],
    ]
    work = export_work_directory(export, plan.token)
    assert work.is_dir()

    # a chord whose first part writes its pieces and whose second names a table there is not
    header = [
        queued_job(PART_JOB).si(job.id, plan.token, [asdict(p) for p in plan.parts[0]], 0.5),
        queued_job(PART_JOB).si(job.id, plan.token, [{"table": "nope", "subgroups": None, "order": 0}], 0.5),
    ]
    body = queued_job(FINISH_JOB).s(job.id, plan.token).on_error(queued_job(DISCARD_JOB).si(job.id))
    chord(header, body).apply_async()

    wait_for(lambda: job_state(job.id) == "failure", 120, "the job to fail")
    wait_for(lambda: Job.objects.get(pk=job.id).progress >= 0.5, 120, "the first part to write its table")
    wait_for(lambda: not work.exists(), 60, "the work directory to go")
    job.refresh_from_db()
    assert "no table 'nope'" in job.error or "a part" in job.error, job.error
    export.refresh_from_db()
    assert export.file == "" and not export.is_ready
    zip_path = Path(settings.MEDIA_ROOT) / export_zip_path(export)
    assert list(zip_path.parent.iterdir()) == []
