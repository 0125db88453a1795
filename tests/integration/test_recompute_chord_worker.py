"""A recompute split into batches runs as a Celery chord on a real worker: the rows are those of one pass,
and a batch that fails on the worker leaves the old rows, a failed job and no rows of its generation."""

import pytest
from celery import chord

from agreement.models import AgreementSnapshot, SnapshotGeneration
from agreement.services import agreement_recompute_start, snapshot_compute_for_project
from agreement.services.generations import snapshot_generation_new
from agreement.services.recompute import RECOMPUTE_KIND, judgments_seen_mark
from agreement.services.recompute_batches import BATCH_JOB, DISCARD_JOB, SWAP_JOB, recompute_batches_plan
from core.job_queue import queued_job
from core.models import Job
from tests.integration.test_agreement_recompute_worker import busy_project, job_state, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
COLUMNS = [f.attname for f in AgreementSnapshot._meta.fields if f.name not in ("id", "computed_at", "generation")]


def stored_rows(project) -> list[tuple]:
    return sorted(AgreementSnapshot.objects.filter(project=project).values_list(*COLUMNS), key=repr)


def generations_stored(project) -> set[int]:
    return set(AgreementSnapshot.all_generations.filter(project=project).values_list("generation", flat=True))


def test_the_worker_runs_the_batches_as_a_chord_and_stores_the_rows_of_one_pass(celery_worker_process):
    project = busy_project(n_items=300, n_weeks=8)
    snapshot_compute_for_project(project_id=project.id)
    one_pass = stored_rows(project)
    through = judgments_seen_mark(project_id=project.id)
    assert len(recompute_batches_plan(project=project, through=through, n_batches=2)) == 2  # the worker's setting

    job = agreement_recompute_start(project=project, user=None)
    wait_for(lambda: job_state(job.id) in ("success", "failure"), 180, "the recompute")
    job.refresh_from_db()
    assert (job.state, job.progress, job.error) == ("success", 1.0, "")
    assert job.celery_id  # through the broker
    assert job.result["snapshots"] == len(one_pass) and job.result["weeks"] == 8
    assert stored_rows(project) == one_pass
    # the rows replaced went after the job had finished
    current = SnapshotGeneration.objects.get(project=project).current
    wait_for(lambda: generations_stored(project) == {current}, 60, "the replaced rows to go")


def test_a_batch_failing_on_the_worker_leaves_the_old_rows_and_none_of_its_generation(celery_worker_process):
    project = busy_project(n_items=120, n_weeks=4)
    snapshot_compute_for_project(project_id=project.id)
    before = stored_rows(project)
    current = SnapshotGeneration.objects.get(project=project).current
    through = judgments_seen_mark(project_id=project.id)
    job = Job.objects.create(kind=RECOMPUTE_KIND, project=project)
    generation = snapshot_generation_new(project_id=project.id)

    # a chord whose first batch writes every row and whose second cannot read its first week
    header = [
        queued_job(BATCH_JOB).si(job.id, generation, 2, None, None, through),
        queued_job(BATCH_JOB).si(job.id, generation, 2, "not a week", None, through),
    ]
    swap = queued_job(SWAP_JOB).s(job.id, generation, through)
    chord(header, swap.on_error(queued_job(DISCARD_JOB).si(job.id, generation))).apply_async()

    wait_for(lambda: job_state(job.id) == "failure", 120, "the job to fail")
    wait_for(lambda: Job.objects.get(pk=job.id).progress >= 0.5, 120, "the first batch to write its rows")
    wait_for(lambda: generations_stored(project) == {current}, 60, "the rows of its generation to go")
    job.refresh_from_db()
    # the failing batch's own error, unless a slow batch redelivered by the test broker's short visibility
    # timeout left the chord's error callback to fail the job
    assert job.state == "failure" and ("Invalid isoformat string" in job.error or "a batch" in job.error), job.error
    assert stored_rows(project) == before
