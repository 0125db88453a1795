"""Agreement alert emails through a real Celery worker to a real SMTP server on loopback (aiosmtpd):
delivered; retried while the server is down and delivered when it is back; never sent twice."""

import random
import socket
import uuid
from datetime import timedelta
from email import message_from_bytes

import pytest
from aiosmtpd.controller import Controller
from django.utils import timezone

from agreement.jobs import alert_emails_send_job, alert_emails_send_pending_job
from agreement.models import AgreementAlert
from annotation.models import Judgment
from core.bulk_insert import insert_rows
from tests.annotation.factories import ItemFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.conftest import client_for
from tests.integration.conftest import Worker, _on_the_worker_broker, worker_database_url
from tests.integration.test_agreement_recompute_worker import job_state, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


class Sink:
    """An SMTP server on a fixed loopback port that keeps what it receives; stopped, the port refuses."""

    def __init__(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.messages = []
        self.controller = None

    async def handle_DATA(self, server, session, envelope):  # aiosmtpd's handler hook
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"

    def start(self):
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self):
        self.controller.stop()


@pytest.fixture
def sink():
    sink = Sink()
    sink.start()
    yield sink
    if sink.controller.loop.is_running():
        sink.stop()


@pytest.fixture
def mail_worker(django_db_setup, django_db_blocker, sink):
    """A worker of this test's own that mails through the sink, sends follow-up jobs through the broker
    (not eagerly, so retries wait their backoff there), and retries after 1, 2, 4... s."""
    queue = f"concord-mail-{uuid.uuid4().hex[:8]}"
    worker = Worker(worker_database_url(django_db_blocker), queue)
    worker.env.update(
        {
            "EMAIL_URL": f"smtp://127.0.0.1:{sink.port}",
            "EMAIL_TIMEOUT": "5",
            "CELERY_TASK_ALWAYS_EAGER": "false",
            "CELERY_TASK_DEFAULT_QUEUE": queue,
            "CONCORD_ALERT_EMAIL_BACKOFF": "1",
            "CONCORD_ALERT_EMAIL_RETRIES": "10",
            "CONCORD_INVITE_EMAIL_BACKOFF": "1",
        }
    )
    with _on_the_worker_broker(queue):
        worker.start()
        try:
            yield worker
        finally:
            worker.stop()


def disagreeing_project(name: str):
    """Two raters who rate 40 items at random this week: agreement far below the 0.4 threshold."""
    rng = random.Random(name)
    project = ProjectFactory(name=name, criteria=["fluency"])
    lead = UserFactory(username=f"lead-{name}", email=f"{name}@example.org")
    MembershipFactory(project=project, user=lead, role="lead")
    raters = [UserFactory(username=f"{name}-rater-{k}") for k in range(2)]
    criterion = project.criteria.get()
    now = timezone.now()
    rows = []
    for i in range(40):
        item = ItemFactory(project=project, external_id=f"{name}-{i}")
        output = item.outputs.get()
        for rater in raters:
            rows.append((project.id, item.id, output.id, criterion.id, rater.id, float(rng.randint(1, 5)), "", [],
                         "import", "", now - timedelta(seconds=i), None, True))  # fmt: skip
    insert_rows(Judgment, ["project", "item", "output", "criterion", "rater", "value", "label", "shown_order",
                           "source", "client_token", "submitted_at", "duration_ms", "is_current"], rows)  # fmt: skip
    return project, client_for(lead)


def recompute(project, client) -> None:
    job_id = client.post(f"/api/v1/projects/{project.id}/agreement/recompute/").json()["job_id"]
    wait_for(lambda: job_state(job_id) in ("success", "failure"), 120, "the recompute")
    assert job_state(job_id) == "success"


def delivery(project) -> tuple:
    return tuple(AgreementAlert.objects.filter(project=project).values_list("delivery", flat=True))


def test_alert_emails_are_delivered_retried_while_the_server_is_down_and_never_sent_twice(mail_worker, sink):
    first, first_client = disagreeing_project("first")
    second, second_client = disagreeing_project("second")

    # Given a recompute on the worker that raises an alert, its email reaches the server
    recompute(first, first_client)
    wait_for(lambda: delivery(first) == ("sent",), 60, "the first alert's email")
    assert [m["To"] for m in sink.messages] == ["first@example.org"]
    assert "Agreement alert in first" in sink.messages[0]["Subject"] and "below 0.40" in str(sink.messages[0])

    # When the server is down, the stored alert waits with its error and is retried
    sink.stop()
    recompute(second, second_client)
    alert = wait_for(
        lambda: (a := AgreementAlert.objects.get(project=second)).attempts >= 2 and a, 60, "two failed attempts"
    )
    assert alert.delivery == "pending" and "ConnectionRefusedError" in alert.last_error

    # Then it is delivered once the server is back
    sink.start()
    wait_for(lambda: delivery(second) == ("sent",), 60, "the retried email")
    assert [m["To"] for m in sink.messages] == ["first@example.org", "second@example.org"]
    sent = AgreementAlert.objects.get(project=second)
    assert sent.attempts > alert.attempts and sent.last_error == ""

    # And the sweep, a duplicate send job and a recompute after it send nothing again: the worker takes jobs
    # in order, so once the recompute is done the jobs before it are too
    alert_emails_send_pending_job.delay()
    alert_emails_send_job.delay(second.id)
    recompute(first, first_client)
    assert len(sink.messages) == 2
    again = AgreementAlert.objects.get(project=second)
    assert (again.sent_at, again.attempts) == (sent.sent_at, sent.attempts)
