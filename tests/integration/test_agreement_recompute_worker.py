"""Agreement recompute through the API on a real Redis broker and a real Celery worker process,
including a worker killed in the middle of a job."""

import random
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from agreement.models import AgreementSnapshot
from annotation.models import Judgment
from core.bulk_insert import insert_rows
from core.models import Job
from tests.agreement.pandalm import load_pandalm
from tests.annotation.factories import ItemFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.conftest import client_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True), pytest.mark.slow]


def wait_for(predicate, timeout: float, what: str):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def job_state(job_id: int) -> str:
    return Job.objects.get(pk=job_id).state


def test_recompute_through_the_api_runs_on_the_worker(celery_worker_process, datasets):
    lead = UserFactory(username="lead-int")
    project, _ = load_pandalm(datasets)
    MembershipFactory(project=project, user=lead, role="lead")
    client = client_for(lead)

    started = client.post(f"/api/v1/projects/{project.id}/agreement/recompute/")
    assert started.status_code == 202
    job_id = started.json()["job_id"]
    final = wait_for(
        lambda: (body := client.get(f"/api/v1/jobs/{job_id}/").json())["state"] in ("success", "failure") and body,
        120,
        "the job to finish",
    )
    assert final["state"] == "success", final["error"]
    assert final["progress"] == 1.0 and final["result"]["judgments"] == 2997
    assert Job.objects.get(pk=job_id).celery_id  # it went through the broker, not eagerly

    kappas = client.get(f"/api/v1/projects/{project.id}/agreement/?statistic=cohen_kappa&window=cumulative").json()
    assert sorted(round(s["value"], 4) for s in kappas["results"]) == [0.852, 0.8617, 0.8789]


def busy_project(n_items=900, n_raters=14, n_weeks=16):
    """Enough weeks, raters and pairs that a recompute takes seconds, so the worker can be killed inside it."""
    rng = random.Random(7)
    project = ProjectFactory(criteria=["fluency", "coherence"], raters_per_item=3)
    raters = [UserFactory(username=f"busy-rater-{k}") for k in range(n_raters)]
    criteria = list(project.criteria.all())
    now = timezone.now()
    rows = []
    for i in range(n_items):
        item = ItemFactory(project=project, external_id=f"b{i}", subgroup=f"g{i % 4}")
        output = item.outputs.get()
        truth = rng.randint(1, 5)
        for rater in rng.sample(raters, 3):
            for criterion in criteria:
                value = min(5, max(1, truth + rng.choice([-1, 0, 0, 0, 1])))
                rows.append(
                    (
                        project.id,
                        item.id,
                        output.id,
                        criterion.id,
                        rater.id,
                        float(value),
                        "",
                        [],
                        "import",
                        "",
                        now - timedelta(weeks=rng.randrange(n_weeks)),
                        None,
                        True,
                    )
                )
    insert_rows(
        Judgment,
        [
            "project",
            "item",
            "output",
            "criterion",
            "rater",
            "value",
            "label",
            "shown_order",
            "source",
            "client_token",
            "submitted_at",
            "duration_ms",
            "is_current",
        ],
        rows,
    )
    return project


def test_a_worker_killed_mid_job_leaves_old_snapshots_and_the_job_completes_after_restart(celery_worker_process):
    lead = UserFactory(username="lead-kill")
    project = busy_project()
    MembershipFactory(project=project, user=lead, role="lead")
    client = client_for(lead)

    # Given snapshots from a first, completed recompute
    first = client.post(f"/api/v1/projects/{project.id}/agreement/recompute/").json()["job_id"]
    wait_for(lambda: job_state(first) == "success", 180, "the first recompute")
    before = sorted(AgreementSnapshot.objects.filter(project=project).values_list("id", "value"), key=str)
    assert before

    # When the worker is killed while a second recompute runs
    second = client.post(f"/api/v1/projects/{project.id}/agreement/recompute/").json()["job_id"]
    wait_for(lambda: job_state(second) == "running", 60, "the second recompute to start")
    time.sleep(0.3)
    celery_worker_process.kill()
    assert job_state(second) == "running", "the job finished before the worker could be killed"

    # Then the stored snapshots are the old ones, untouched
    assert sorted(AgreementSnapshot.objects.filter(project=project).values_list("id", "value"), key=str) == before

    # And a restarted worker receives the unacknowledged job again and completes it
    celery_worker_process.start()
    wait_for(lambda: job_state(second) == "success", 180, "the redelivered job")
    after = AgreementSnapshot.objects.filter(project=project)
    assert after.count() == len(before) and not set(after.values_list("id", flat=True)) & {i for i, _ in before}
