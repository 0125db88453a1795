"""The automatic recompute of stale agreement on a real Redis broker and a real Celery worker process: the
beat's sweep job starts a tracked recompute for a project with new judgments, the worker computes it, and the
next sweeps start none until both new judgments and the lead-set interval are there. The interval's passing is
written into the database, never waited for."""

from datetime import timedelta

import pytest

from agreement.jobs import agreement_recompute_stale_all_job
from agreement.models import AgreementSettings, AgreementSnapshot
from annotation.models import Judgment
from core.models import Job
from tests.annotation.factories import ItemFactory, JudgmentFactory, ProjectFactory, UserFactory
from tests.integration.test_agreement_recompute_worker import job_state, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SWEEP_TIMEOUT = 120


def _judge(project, raters, n_items):
    for k in range(n_items):
        item = ItemFactory(project=project, systems=["bart"])
        for rater in raters:
            JudgmentFactory(item=item, rater=rater, value=1 + k % 5)


def _sweep() -> list[int]:
    """One sweep, run by the worker (its result comes back through the result backend)."""
    return agreement_recompute_stale_all_job.delay().get(timeout=SWEEP_TIMEOUT)


def _recomputes(project) -> list[int]:
    jobs = Job.objects.filter(project=project, kind="agreement_recompute").order_by("id")
    return list(jobs.values_list("id", flat=True))


def test_the_sweep_recomputes_stale_agreement_once_per_interval_on_the_worker(celery_worker_process):
    project = ProjectFactory(criteria=["fluency"])
    raters = [UserFactory(), UserFactory()]
    _judge(project, raters, 6)

    assert _sweep() == [project.pk]
    (first,) = _recomputes(project)
    wait_for(lambda: job_state(first) == "success", 120, "the automatic recompute")
    assert Job.objects.get(pk=first).celery_id  # it went through the broker
    assert AgreementSnapshot.objects.filter(project=project).exists()
    assert AgreementSettings.objects.get(project=project).judgments_seen_through == Judgment.objects.latest("id").id

    # New judgments within the interval: the sweep starts nothing (debounced)
    _judge(project, raters, 2)
    assert _sweep() == [] and _recomputes(project) == [first]

    # The interval has passed: one more recompute, which reads the new judgments
    AgreementSettings.objects.filter(project=project).update(
        auto_recompute_started_at=AgreementSettings.objects.get(project=project).auto_recompute_started_at
        - timedelta(minutes=61)
    )
    assert _sweep() == [project.pk]
    second = _recomputes(project)[-1]
    wait_for(lambda: job_state(second) == "success", 120, "the second automatic recompute")
    assert AgreementSettings.objects.get(project=project).judgments_seen_through == Judgment.objects.latest("id").id

    # Nothing new: no recompute, though the interval has passed again
    AgreementSettings.objects.filter(project=project).update(
        auto_recompute_started_at=AgreementSettings.objects.get(project=project).auto_recompute_started_at
        - timedelta(minutes=61)
    )
    assert _sweep() == [] and len(_recomputes(project)) == 2
