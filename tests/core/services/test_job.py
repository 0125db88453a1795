"""Background jobs: progress, success and failure recorded on the Job row."""

import pytest
from celery import shared_task
from django.db import DEFAULT_DB_ALIAS, connections, transaction

from annotation.models import Project
from core.models import Job
from core.services.job import JobProgress, job_run, job_start

pytestmark = pytest.mark.django_db


@shared_task
def failing_job(job_id):
    def work(job, progress):
        progress(1, 2)
        raise RuntimeError("the data went away")

    return job_run(job_id, work)


def test_job_run_records_success_with_its_result(project):
    job = Job.objects.create(kind="test", project=project)
    assert job_run(job.id, lambda job, progress: {"answer": 42}) == {"answer": 42}
    job.refresh_from_db()
    assert (job.state, job.progress, job.result) == ("success", 1.0, {"answer": 42})
    assert job.started_at <= job.finished_at


def test_a_failing_eager_job_is_recorded_and_the_starting_request_does_not_fail(
    project, lead, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = job_start(kind="test", task=failing_job, project=project, created_by=lead)
    job.refresh_from_db()
    assert job.state == "failure" and "RuntimeError: the data went away" in job.error
    assert job.progress == 0.5


def test_progress_writes_are_throttled(project):
    job = Job.objects.create(kind="test", project=project)
    progress = JobProgress(job.id)
    progress(1, 1000)
    job.refresh_from_db()
    assert job.progress == 0.0  # below the 2% step
    progress(500, 1000, "halfway")
    job.refresh_from_db()
    assert (job.progress, job.message) == (0.5, "halfway")


# PostgreSQL's: SQLite has one writer at a time, so there progress goes through the job's own connection
@pytest.mark.django_db(transaction=True)
@pytest.mark.postgresql
def test_progress_is_seen_by_other_connections_while_the_job_writes_in_one_transaction(project):
    job = Job.objects.create(kind="test", project=project)
    watcher = connections.create_connection(DEFAULT_DB_ALIAS)  # as the page polling the job
    seen = []

    def work(job, progress):
        with transaction.atomic():
            Project.objects.filter(pk=project.pk).update(name="written inside the transaction")
            progress(1, 4, "a quarter")
            with watcher.cursor() as cursor:
                cursor.execute("SELECT progress, message FROM annotation_job WHERE id = %s", [job.pk])
                seen.append(cursor.fetchone())
        return {}

    try:
        job_run(job.pk, work)
    finally:
        watcher.close()
    assert seen == [(0.25, "a quarter")]
    job.refresh_from_db()
    assert (job.state, job.progress) == ("success", 1.0)


@pytest.mark.django_db(transaction=True)
def test_a_job_whose_transaction_locks_its_own_row_still_reports_progress(project):
    job = Job.objects.create(kind="test", project=project)

    def work(job, progress):
        with transaction.atomic():
            Job.objects.filter(pk=job.pk).update(message="locked by the job")
            progress(1, 4, "a quarter")
            progress(2, 4, "half")  # straight through the job's connection, without waiting again
        return {}

    job_run(job.pk, work)
    job.refresh_from_db()
    assert (job.state, job.message) == ("success", "half")
