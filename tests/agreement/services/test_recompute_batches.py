"""A recompute split into batches of weeks (a Celery chord, eager here) stores the same rows as one pass, makes
them current at once, leaves the old rows when a batch fails, and is not started twice at once."""

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from agreement.models import AgreementSnapshot, SnapshotGeneration
from agreement.services import snapshot_compute_for_project
from agreement.services.generations import snapshot_generation_new
from agreement.services.recompute import RECOMPUTE_KIND, agreement_recompute_start, judgments_seen_mark
from agreement.services.recompute_batches import (
    RecomputeBatch,
    agreement_recompute_dispatch,
    recompute_batch_write,
    recompute_batches_plan,
    recompute_batches_swap,
    snapshot_rows_compute,
)
from core.models import Job
from tests.agreement.services.snapshot_golden import MONDAY, N_WEEKS, canonical_rows, golden_projects
from tests.annotation.factories import ItemFactory, JudgmentFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def recompute(project, n_batches: int, settings) -> Job:
    settings.CONCORD_RECOMPUTE_BATCHES = n_batches
    job = Job.objects.create(kind=RECOMPUTE_KIND, project=project)
    agreement_recompute_dispatch(job_id=job.id)
    job.refresh_from_db()
    return job


@pytest.mark.parametrize("n_batches", [1, 2, 50])
def test_batches_store_the_rows_of_one_pass(n_batches, settings):
    """On the golden projects of every task type (tests/agreement/services/snapshot_golden.py)."""
    for project in golden_projects():
        snapshot_compute_for_project(project_id=project.id)
        one_pass = canonical_rows(project)
        through = judgments_seen_mark(project_id=project.id)
        planned = recompute_batches_plan(project=project, through=through, n_batches=n_batches)
        assert len(planned) == min(n_batches, 5)  # the golden projects' judgments span five weeks
        job = recompute(project, n_batches, settings)
        assert (job.state, job.progress, job.error) == ("success", 1.0, "")
        assert job.result["snapshots"] == len(one_pass)
        assert canonical_rows(project) == one_pass, project.name
        # the one pass's rows went: only the current generation is left
        assert generations_stored(project) == {SnapshotGeneration.objects.get(project=project).current}


def test_the_summary_adds_up_the_batches(settings):
    project = golden_projects()[0]  # Likert, with one value off its scale
    whole = recompute(project, 1, settings).result
    assert recompute(project, 3, settings).result == whole
    assert whole["off_scale"] == 1 and whole["weeks"] == 5 and whole["judgments"] > 0


def test_a_project_without_judgments_left_is_one_batch_that_clears_its_snapshots(settings):
    project = golden_projects()[0]
    snapshot_compute_for_project(project_id=project.id)
    project.judgments.all().delete()
    assert recompute_batches_plan(project=project, through=0, n_batches=4) == [RecomputeBatch(0, None, None)]
    job = recompute(project, 4, settings)
    assert job.state == "success" and job.result["snapshots"] == 0
    assert not AgreementSnapshot.objects.filter(project=project).exists()


def test_a_batch_that_fails_leaves_the_previous_rows_and_fails_the_job(settings):
    project = golden_projects()[0]
    snapshot_compute_for_project(project_id=project.id)
    before = canonical_rows(project)
    calls = []

    seen_by_readers, written = [], []

    def second_batch_fails(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            # the first batch's rows are in the table, under the recompute's generation: readers see the old ones
            seen_by_readers.append(canonical_rows(project))
            written.append(AgreementSnapshot.all_generations.filter(project=project).count() - len(before))
            raise ValueError("the disk is full")
        return snapshot_rows_compute(*args, **kwargs)

    with (
        mock.patch("agreement.services.recompute_batches.snapshot_rows_compute", second_batch_fails),
        pytest.raises(ValueError, match="the disk is full"),
    ):
        recompute(project, 3, settings)

    job = Job.objects.get(kind=RECOMPUTE_KIND, project=project)
    assert (job.state, job.error) == ("failure", "ValueError: the disk is full")
    assert written[0] > 0 and seen_by_readers == [before]
    assert canonical_rows(project) == before
    # the first batch's rows went: none but the current generation's are left
    assert AgreementSnapshot.all_generations.filter(project=project).count() == len(before)


def test_a_second_request_while_one_is_pending_or_running_gets_the_same_job():
    project, lead = ProjectFactory(), UserFactory()
    first = agreement_recompute_start(project=project, user=lead)  # queued on commit: still pending here
    assert agreement_recompute_start(project=project, user=lead) == first
    Job.objects.filter(pk=first.pk).update(state=Job.State.RUNNING)
    assert agreement_recompute_start(project=project, user=None) == first

    Job.objects.filter(pk=first.pk).update(state=Job.State.SUCCESS)
    second = agreement_recompute_start(project=project, user=lead)
    assert second != first

    # a job pending for hours lost its worker: it is not waited for
    Job.objects.filter(pk=second.pk).update(created_at=timezone.now() - timedelta(hours=3))
    assert agreement_recompute_start(project=project, user=lead) not in (first, second)


def test_a_project_rating_turns_and_whole_outputs_stores_the_rows_of_one_pass_in_batches(settings):
    # both kinds of unit, computed apart, in each batch of weeks as in one pass
    project = ProjectFactory(rating_unit="both", criteria=["helpful"])
    raters = [UserFactory(), UserFactory(), UserFactory()]
    start = timezone.now() - timedelta(weeks=4)
    values = [1, 2, 3, 4, 5]
    for k in range(12):
        item = ItemFactory(project=project)
        when = start + timedelta(weeks=k % 4, hours=k)
        for r, rater in enumerate(raters):
            JudgmentFactory(item=item, rater=rater, value=float(values[(k + r * (k % 2)) % 5]), submitted_at=when)
            for turn in (0, 2):
                value = float(values[(k + turn + r * (k % 3 == 0)) % 5])
                JudgmentFactory(item=item, rater=rater, turn=turn, value=value, submitted_at=when)
    snapshot_compute_for_project(project_id=project.id)
    one_pass = canonical_rows(project)
    assert any("turn|" in row for row in one_pass) and any("turn|" not in row for row in one_pass)
    through = judgments_seen_mark(project_id=project.id)
    assert len(recompute_batches_plan(project=project, through=through, n_batches=3)) == 3
    job = recompute(project, 3, settings)
    assert (job.state, job.error) == ("success", "")
    assert canonical_rows(project) == one_pass


def generations_stored(project) -> set[int]:
    return set(AgreementSnapshot.all_generations.filter(project=project).values_list("generation", flat=True))


def write_batches(project, n_batches: int) -> tuple[Job, int, int, list[dict]]:
    """A recompute's batches, each written once, by hand; its job, generation, mark and the batches' summaries."""
    job = Job.objects.create(kind=RECOMPUTE_KIND, project=project)
    generation = snapshot_generation_new(project_id=project.id)
    through = judgments_seen_mark(project_id=project.id)
    batches = recompute_batches_plan(project=project, through=through, n_batches=n_batches)
    summaries = [write_batch(job, generation, b, len(batches), through) for b in batches]
    return job, generation, through, summaries


def write_batch(job: Job, generation: int, batch: RecomputeBatch, n_batches: int, through: int) -> dict:
    return recompute_batch_write(
        job_id=job.id,
        generation=generation,
        n_batches=n_batches,
        first_week=batch.first_week and batch.first_week.isoformat(),
        before_week=batch.before_week and batch.before_week.isoformat(),
        through=through,
    )


def test_a_batch_delivered_twice_replaces_its_own_rows():
    project = golden_projects()[0]
    snapshot_compute_for_project(project_id=project.id)
    one_pass = canonical_rows(project)
    job, generation, through, summaries = write_batches(project, 3)
    # the middle batch again, as a message redelivered after its worker died would run it
    batches = recompute_batches_plan(project=project, through=through, n_batches=3)
    assert write_batch(job, generation, batches[1], 3, through) == summaries[1]
    recompute_batches_swap(job_id=job.id, generation=generation, through=through, summaries=summaries)
    assert canonical_rows(project) == one_pass
    assert AgreementSnapshot.all_generations.filter(project=project).count() == len(one_pass)


def test_a_recompute_finishing_after_a_later_one_leaves_the_later_rows_current():
    project = golden_projects()[0]
    snapshot_compute_for_project(project_id=project.id)
    job, generation, through, summaries = write_batches(project, 2)
    # meanwhile the last week's judgments are withdrawn and a recompute started later finishes first
    project.judgments.filter(submitted_at__gte=MONDAY + timedelta(weeks=N_WEEKS - 1)).delete()
    snapshot_compute_for_project(project_id=project.id)
    later = canonical_rows(project)

    recompute_batches_swap(job_id=job.id, generation=generation, through=through, summaries=summaries)
    job.refresh_from_db()
    assert job.state == "success"
    assert canonical_rows(project) == later
    assert generations_stored(project) == {SnapshotGeneration.objects.get(project=project).current} != {generation}
