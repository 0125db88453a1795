"""A real Celery worker process on a real Redis broker, pointed at the test database.

The tests that use it need committed data (``transactional_db``), since the worker has its own
database connection.
"""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import kombu.pools
import pytest
import redis
from django.conf import settings
from django.db import connection

from config.celery_app import app as celery_app
from tests.conftest import XDIST_WORKER

ROOT = Path(__file__).resolve().parents[2]
BROKER = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15"
VISIBILITY_TIMEOUT = 4
READY_TIMEOUT = 180
# Empties the broker's database once per run: under pytest-xdist every worker process starts a session worker on
# the same Redis database, and a later flush would drop the jobs an earlier one has queued. Atomic (one script).
FLUSH_ONCE_PER_RUN = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    redis.call('FLUSHDB')
    redis.call('SET', KEYS[1], ARGV[1])
end
"""


def reset_celery_connections() -> None:
    """Forget the app's pooled broker connections and producers, so the next send connects to the
    broker_url configured now. Celery does the same in a forked child (``_after_fork``).

    The app's pool lives in kombu's global registry of pools, keyed by broker URL: closing it alone
    would leave a closed pool there for the next use of the same URL ("Acquire on closed pool", which
    even an eager send hits, since Celery acquires a producer for it), so the registry is reset too."""
    kombu.pools.reset()
    celery_app._after_fork()


class Worker:
    """Starts, kills and restarts one ``celery worker`` process."""

    def __init__(self, database_url: str, queue: str):
        self.queue = queue
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": database_url,
            "REDIS_URL": BROKER,
            "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
            "CELERY_UNACKED_RESTORE_INTERVAL": "1",
            "CELERY_UNACKED_RESTORE_THROTTLE": "1",
            # not another xdist worker's Celery worker, idle, to redeliver this one's running jobs after 4 s
            "CELERY_UNACKED_KEY": f"unacked-{queue}",
        }
        self.proc = None
        self.log = None

    def start(self) -> None:
        (ROOT / "artifacts").mkdir(exist_ok=True)
        self.log = open(ROOT / "artifacts" / f"celery-worker{XDIST_WORKER and '-' + XDIST_WORKER}.log", "ab")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--pool",
                "solo",
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-Q",
                self.queue,
                "-n",
                f"{self.queue}@%h",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        try:
            self._wait_until_ready()
        except RuntimeError:
            self.stop()  # never leave a worker behind to take another run's jobs
            raise

    def _wait_until_ready(self) -> None:
        # A restarted worker takes the job redelivered to it first and answers pings only once that is done: the
        # start under load and the job both fit in the deadline.
        deadline = time.time() + READY_TIMEOUT
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"the Celery worker exited with {self.proc.returncode}; see artifacts/celery-worker*.log"
                )
            replies = celery_app.control.ping(destination=[f"{self.queue}@{socket.gethostname()}"], timeout=0.5)
            if replies:
                return
        raise RuntimeError(f"the Celery worker did not answer a ping within {READY_TIMEOUT} s")

    def kill(self) -> None:
        """SIGKILL, as an out-of-memory kill or a pulled plug would: no graceful shutdown."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        if self.log:
            self.log.close()


@contextlib.contextmanager
def _on_the_worker_broker(queue: str):
    """Sends jobs through the real broker to ``queue`` (not eagerly) inside the block, as before it after."""
    conf = celery_app.conf
    previous = (conf.task_always_eager, conf.broker_url, conf.task_default_queue, conf.broker_transport_options)
    conf.task_always_eager, conf.broker_url, conf.task_default_queue = False, BROKER, queue
    conf.broker_transport_options = {"visibility_timeout": VISIBILITY_TIMEOUT}
    reset_celery_connections()  # whatever broker earlier tests used
    try:
        yield
    finally:
        (conf.task_always_eager, conf.broker_url, conf.task_default_queue, conf.broker_transport_options) = previous
        reset_celery_connections()


def worker_database_url(django_db_blocker) -> str:
    """The test database as a DATABASE_URL, for a worker process (needs ``django_db_setup`` first)."""
    with django_db_blocker.unblock():
        db = settings.DATABASES["default"]
        credentials = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
        return (
            f"postgres://{credentials}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/"
            f"{connection.settings_dict['NAME']}"
        )


@pytest.fixture(scope="session")
def _celery_worker_for_the_session(django_db_setup, django_db_blocker):
    """One worker process for the session (starting one takes seconds), on a queue of this session's own:
    a worker left over from another run, or another xdist worker's, cannot take its jobs."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or uuid.uuid4().hex
    redis.Redis.from_url(BROKER).eval(FLUSH_ONCE_PER_RUN, 1, "concord-tests:flushed-for-run", run)
    queue = f"concord-test-{uuid.uuid4().hex[:8]}"
    worker = Worker(worker_database_url(django_db_blocker), queue)
    with _on_the_worker_broker(queue):  # the readiness ping goes through the broker
        worker.start()
    yield worker
    worker.stop()


@pytest.fixture
def celery_worker_process(_celery_worker_for_the_session):
    """The worker, with this test's jobs sent to it; the tests after it send their jobs eagerly again."""
    with _on_the_worker_broker(_celery_worker_for_the_session.queue):
        yield _celery_worker_for_the_session
