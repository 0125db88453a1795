"""Background jobs: progress, success and failure recorded on the Job row."""
import pytest
from celery import shared_task

from annotation.models import Job
from annotation.services.job import JobProgress, job_run, job_start

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
        project, lead, django_capture_on_commit_callbacks):
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
