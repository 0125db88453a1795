"""The upload import job's progress is visible to other connections while the import's transaction is open."""

import importlib
import json

import pytest
from django.db import DEFAULT_DB_ALIAS, connections

import console.services.item_upload as item_upload
from annotation.models import Membership
from console.jobs import item_upload_import_job
from core.models import Job
from core.services.job import JobProgress
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory


@pytest.mark.django_db(transaction=True)
def test_progress_is_committed_while_the_import_runs(settings, tmp_path, monkeypatch):
    settings.MEDIA_ROOT = tmp_path
    project = ProjectFactory(criteria=["fluency"])
    lead = UserFactory(username="progress-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    (tmp_path / "imports").mkdir()
    (tmp_path / "imports" / "f.jsonl").write_bytes(
        b"".join(
            json.dumps({"external_id": f"d{k}", "input": "x", "outputs": [{"system": "s", "text": "t"}]}).encode()
            + b"\n"
            for k in range(10)
        )
    )
    job = Job.objects.create(
        kind="item_import",
        project=project,
        created_by=lead,
        params={"file": "f.jsonl", "format": "jsonl", "filename": "f.jsonl"},
    )
    # The package re-exports the function under the module's name: fetch the module itself.
    monkeypatch.setattr(importlib.import_module("annotation.services.item_import"), "BATCH_SIZE", 2)
    seen = []
    report = JobProgress.__call__
    watcher = connections.create_connection(DEFAULT_DB_ALIAS)  # as the page polling the job

    def spy(self, done, total, message=""):
        report(self, done, total, message)
        with watcher.cursor() as cursor:
            cursor.execute("SELECT progress, message FROM annotation_job WHERE id = %s", [job.pk])
            seen.append(cursor.fetchone())

    monkeypatch.setattr(JobProgress, "__call__", spy)
    try:
        assert item_upload_import_job(job.pk) == {"imported": 10}
    finally:
        watcher.close()
    assert [progress for progress, _ in seen] == [0.2, 0.4, 0.6, 0.8, 1.0, 1.0]
    assert seen[0][1] == "2 of 10 items written"
    assert not (tmp_path / "imports" / "f.jsonl").exists()


@pytest.mark.django_db(transaction=True)
def test_an_upload_whose_job_cannot_be_queued_keeps_no_file(settings, tmp_path, monkeypatch):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from kombu.exceptions import OperationalError

    from config.celery_app import app as celery_app

    def broker_down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6390. Connection refused.")

    settings.MEDIA_ROOT = tmp_path
    monkeypatch.setitem(celery_app.conf, "task_always_eager", False)  # a broker is configured, and down
    monkeypatch.setattr(item_upload_import_job, "delay", broker_down)
    project = ProjectFactory(criteria=["fluency"])
    upload = SimpleUploadedFile("items.jsonl", b'{"external_id": "a", "input": "x", "outputs": ["t"]}\n')
    with pytest.raises(OperationalError):
        item_upload.item_upload_start(project=project, upload=upload, created_by=None)
    assert list((tmp_path / "imports").iterdir()) == []
    job = Job.objects.get()
    assert job.state == Job.State.FAILURE and "could not queue the job" in job.error
