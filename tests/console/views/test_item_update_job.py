"""A re-upload in "update existing items" mode runs as a job: the form answers at once with the job's page, which
shows the job's progress (reloading itself) and then what changed, or the bad lines of a refused file."""

import importlib
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Item, Membership
from console.services.item_upload import item_upload_update
from core.models import Job
from tests.annotation.factories import ItemFactory, MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    project = ProjectFactory(name="update study", criteria=["fluency"])
    ItemFactory(project=project, external_id="doc1", systems=["bart"])
    lead = UserFactory(username="update-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    client.force_login(lead)
    return project


def _file(*lines: dict, name="v2.jsonl") -> SimpleUploadedFile:
    return SimpleUploadedFile(
        name, b"".join(json.dumps(line).encode() + b"\n" for line in lines), content_type="application/x-ndjson"
    )


NEW = {"external_id": "new", "input": "x", "outputs": [{"system": "bart", "text": "y"}]}
CHANGED = {"external_id": "doc1", "input": "changed input", "outputs": [{"system": "bart", "text": "y"}]}


def test_the_update_runs_as_a_job_whose_page_shows_progress_then_what_changed(
    client, study, tmp_path, django_capture_on_commit_callbacks
):
    project = study
    with django_capture_on_commit_callbacks() as callbacks:
        started = client.post(f"/projects/{project.pk}/items/update/", {"file": _file(NEW, CHANGED)})
    job = Job.objects.get(kind="item_update")
    assert started.status_code == 302 and started.url == f"/projects/{project.pk}/items/update/{job.pk}/"
    # Given the job has not run yet, its page says so and reloads itself
    waiting = client.get(started.url).content.decode()
    assert 'data-testid="update-progress"' in waiting and '<meta http-equiv="refresh" content="2">' in waiting
    assert "Updating items from v2.jsonl" in waiting and "Waiting to start" in waiting
    assert not Item.objects.filter(project=project, external_id="new").exists()
    for callback in callbacks:  # eager Celery: the job runs here
        callback()
    done = client.get(started.url).content.decode()
    assert 'data-testid="update-progress"' not in done and "http-equiv" not in done
    assert '<dd data-outcome="added">1</dd>' in done and '<dd data-outcome="updated">1</dd>' in done
    assert Item.objects.get(project=project, external_id="doc1").input == "changed input"
    assert list((tmp_path / "imports").iterdir()) == []  # the kept file is gone once the job ran


def test_a_refused_file_shows_its_bad_lines_on_the_job_page(client, study, django_capture_on_commit_callbacks):
    project = study
    with django_capture_on_commit_callbacks(execute=True):
        started = client.post(
            f"/projects/{project.pk}/items/update/", {"file": _file(NEW, {"external_id": "bad", "input": "x"})}
        )
    page = client.get(started.url).content.decode()
    assert Job.objects.get(kind="item_update").state == "failure"
    assert "<tr><td>2</td><td><code>outputs</code></td>" in page
    assert not Item.objects.filter(project=project, external_id="new").exists()


def test_the_job_reports_progress_batch_by_batch(study, tmp_path, monkeypatch):
    project = study
    (tmp_path / "imports").mkdir()
    (tmp_path / "imports" / "f.jsonl").write_bytes(_file(NEW, CHANGED).read())
    job = Job.objects.create(
        kind="item_update", project=project, params={"file": "f.jsonl", "format": "jsonl", "filename": "f.jsonl"}
    )
    monkeypatch.setattr(importlib.import_module("annotation.services.item_changes"), "BATCH_SIZE", 1)
    seen = []
    result = item_upload_update(job=job, progress=lambda done, total, message: seen.append((done, total, message)))
    assert seen == [(1, 2, "1 of 2 lines done"), (2, 2, "2 of 2 lines done")]
    assert (result["added"], result["updated"]) == (1, 1)


def test_another_projects_or_kinds_job_is_not_found(client, study):
    project = study
    other = Job.objects.create(kind="item_import", project=project)
    elsewhere = Job.objects.create(kind="item_update", project=ProjectFactory())
    for job in (other, elsewhere):
        assert client.get(f"/projects/{project.pk}/items/update/{job.pk}/").status_code == 404
