"""Redis stopped (broker and cache): rating goes on; a recompute is refused loudly (503 naming the job
queue, the Job recorded as failed with the reason), never queued into the void; logins still work.

Uses its own Redis on a free port, started and stopped here, so other runs' Redis (and another xdist worker's
own one) is untouched.
"""

import shutil
import socket
import subprocess
import time

import pytest
import redis
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from annotation.models import Assignment, Judgment, Membership
from config.celery_app import app as celery_app
from core.models import Job
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import add_raters, full_values, rating_project
from tests.integration.conftest import reset_celery_connections

PASSWORD = "pass-word-1234"  # UserFactory's

pytestmark = pytest.mark.django_db


@pytest.fixture
def stopped_redis(settings, tmp_path):
    """A Redis of our own as broker and cache, stopped once the app has used it."""
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"redis://127.0.0.1:{port}/0"
    subprocess.run(
        [
            "redis-server",
            "--port",
            str(port),
            "--daemonize",
            "yes",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
    )
    client = redis.Redis.from_url(url)
    for _ in range(50):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.1)
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}}
    previous = (celery_app.conf.task_always_eager, celery_app.conf.broker_url)
    celery_app.conf.task_always_eager, celery_app.conf.broker_url = False, url
    reset_celery_connections()  # drop pooled connections to the previous broker
    cache.set("warm", 1)  # the app has connected to it
    try:
        client.shutdown(nosave=True)
    except redis.ConnectionError:
        pass  # the shutdown closes the connection it came on
    yield
    celery_app.conf.task_always_eager, celery_app.conf.broker_url = previous
    reset_celery_connections()


@pytest.mark.django_db(transaction=True)  # the job is sent on commit
def test_rating_goes_on_and_recompute_fails_loudly_while_redis_is_down(stopped_redis):
    project = rating_project(n_items=3, criteria=["fluency"], systems=["s1"])
    (rater,) = add_raters(project)
    lead = UserFactory(username="faultlead")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)

    # Rating over the API goes on
    rater_api = APIClient()
    rater_api.force_authenticate(rater)
    screen = rater_api.post(f"/api/v1/projects/{project.pk}/next/")
    assert screen.status_code == 200
    assignment = Assignment.objects.get(pk=screen.json()["assignment_id"])
    submitted = rater_api.post(
        f"/api/v1/assignments/{assignment.pk}/judgment/", {"values": full_values(assignment, 4)}, format="json"
    )
    assert submitted.status_code == 201
    assert Judgment.objects.filter(assignment=assignment).count() == 1

    # A recompute is refused with a message, and the job says why
    lead_api = APIClient()
    lead_api.force_authenticate(lead)
    refused = lead_api.post(f"/api/v1/projects/{project.pk}/agreement/recompute/")
    assert refused.status_code == 503, refused.content[:300]
    assert "job queue is unavailable" in refused.json()["detail"]
    job = Job.objects.get(project=project)
    assert job.state == Job.State.FAILURE
    assert job.error.startswith("could not queue the job")
    assert lead_api.get(f"/api/v1/jobs/{job.pk}/").json()["state"] == "failure"


def test_logins_still_work_while_the_cache_is_down(stopped_redis):
    UserFactory(username="stillin")
    token = APIClient().post("/api/v1/auth/token/", {"username": "stillin", "password": PASSWORD}, format="json")
    assert token.status_code == 200, token.content[:300]
    page = Client().post("/accounts/login/", {"username": "stillin", "password": PASSWORD})
    assert page.status_code == 302
    failed = Client().post("/accounts/login/", {"username": "stillin", "password": "wrong-password"})
    assert failed.status_code == 200
