"""The upload page's import on a real Redis broker and a real Celery worker process: the page's job goes
through the broker, and its progress is seen climbing while the import's transaction is still open."""

import json
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotation.models import Item, Membership
from core.models import Job
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

N_ITEMS = 30_000  # fifteen batches of item_import's 2,000: a few seconds of work to watch


def test_upload_runs_on_the_worker_with_visible_progress(celery_worker_process):
    project = ProjectFactory(criteria=["fluency"])
    lead = UserFactory(username="upload-worker-lead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    body = "".join(
        json.dumps(
            {"external_id": f"w{k}", "input": f"input {k}", "outputs": [{"system": "bart", "text": f"output {k}"}]}
        )
        + "\n"
        for k in range(N_ITEMS)
    ).encode()
    client = Client()
    client.force_login(lead)

    response = client.post(
        f"/projects/{project.pk}/items/upload/",
        {"file": SimpleUploadedFile("big.jsonl", body)},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 202
    job_url = response.json()["job_url"]

    seen, deadline = [], time.time() + 180
    while time.time() < deadline:
        state = client.get(job_url).json()
        seen.append((state["progress"], Item.objects.filter(project=project).count()))
        if state["state"] in ("success", "failure"):
            break
        time.sleep(0.02)
    assert state["state"] == "success", state["error"]
    assert state["result"] == {"imported": N_ITEMS} and Job.objects.get(pk=state["id"]).celery_id
    # Progress between 0 and 1 was readable while no item was visible yet: the import had not committed.
    assert any(0 < progress < 1 and n_items == 0 for progress, n_items in seen), seen[-5:]
    assert [p for p, _ in seen] == sorted(p for p, _ in seen)
    assert Item.objects.filter(project=project).count() == N_ITEMS
