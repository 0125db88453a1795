"""Fixtures shared by every test: API clients, a lead with a project, raters, the datasets folder."""

import os
from pathlib import Path

import pytest
from django.conf import settings
from django.db.backends.postgresql.operations import DatabaseOperations
from rest_framework.test import APIClient

from annotation.models import Membership
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory

pytest_plugins = ["tests.browser_support"]

DATASETS = Path(
    os.environ.get("CONCORD_DATASETS") or Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"
)
# Set by .ci/run: what CI must run is never skipped there. A missing dataset fails instead of skipping, and a
# test marked ``postgresql`` that skips (CI runs on PostgreSQL) fails.
STRICT = os.environ.get("CONCORD_TESTS_STRICT", "") not in ("", "0", "false")
# pytest-xdist's worker running this process ("gw0", "gw1"...; empty in a run without -n). Each worker has a test
# database of its own (pytest-django suffixes its name with it); what else the workers would share is made theirs.
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")


def pytest_configure(config):
    if XDIST_WORKER:
        # Exports and uploads are named by database ids, which both workers' databases hand out alike. The
        # environment variable reaches the Celery worker processes the integration tests start.
        media = Path(settings.MEDIA_ROOT) / f"xdist-{XDIST_WORKER}"
        settings.MEDIA_ROOT = media
        os.environ["CONCORD_MEDIA_ROOT"] = str(media)


def datasets_folder() -> Path:
    """The shared real-data folder; skips the test when absent (fails under CONCORD_TESTS_STRICT)."""
    if not DATASETS.is_dir():
        (pytest.fail if STRICT else pytest.skip)(f"{DATASETS} is absent (set CONCORD_DATASETS)")
    return DATASETS


def pytest_runtest_setup(item):
    """Tests marked ``postgresql`` skip on another database (a lane runs them deselected: ``-m "not postgresql"``)."""
    if item.get_closest_marker("postgresql") is not None:
        if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
            pytest.skip("needs PostgreSQL (row locks, SKIP LOCKED, concurrent connections)")


def pytest_collection_modifyitems(config, items):
    """On pytest-xdist's workers, the files with a test marked ``slow`` first, then the others by their number
    of tests, most first (what --dist loadfile does by itself; scripts/run_tests.sh turns that off with
    --no-loadscope-reorder so that this order holds). Left to xdist, the slowest files, which hold one or two
    tests, came last, and one worker ran them alone for minutes after the other had finished. xdist hands out
    whole files in the order of their first test and needs the same order on every worker: it depends on the
    collection only. A run without workers keeps pytest-django's order."""
    if not XDIST_WORKER:
        return
    files: dict[str, list] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)
    order = sorted(
        files.values(), key=lambda tests: (all(t.get_closest_marker("slow") is None for t in tests), -len(tests))
    )
    items[:] = [item for tests in order for item in tests]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if STRICT and report.skipped and item.get_closest_marker("postgresql") is not None:
        report.outcome = "failed"
        report.longrepr = f"a PostgreSQL-only test was skipped under CONCORD_TESTS_STRICT: {report.longrepr}"


_truncate_flush = DatabaseOperations.sql_flush


def _delete_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
    """Django's flush as DELETEs instead of one TRUNCATE of every table.

    pytest-django empties the database after each transactional test (``transaction=True``, live server,
    Celery worker) with Django's flush, on PostgreSQL a TRUNCATE of all 48 tables: new files for every table
    and index, 0.9 to 1.3 s a test on this 2-core machine under load against 0.04 to 0.3 s for DELETEs of
    the same (nearly empty) tables. The end state is the same: every table empty, sequences untouched (flush
    does not reset them either). Django's foreign keys are DEFERRABLE INITIALLY DEFERRED, so the order of the
    DELETEs does not matter. Sequence resets and cascades (a flush of some apps only) keep TRUNCATE."""
    if reset_sequences or allow_cascade or not tables:
        return _truncate_flush(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
    return ["SET CONSTRAINTS ALL DEFERRED", *(f"DELETE FROM {self.quote_name(table)}" for table in tables)]


@pytest.fixture(scope="session", autouse=True)
def _flush_by_delete():
    DatabaseOperations.sql_flush = _delete_flush
    yield
    DatabaseOperations.sql_flush = _truncate_flush


@pytest.fixture
def datasets() -> Path:
    """The shared real-data folder (``$CONCORD_DATASETS``, else ``../shared/datasets`` beside the
    checkout); skips when absent, fails then under CONCORD_TESTS_STRICT."""
    return datasets_folder()


@pytest.fixture
def api_client():
    return APIClient()


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def staff(db):
    return UserFactory(username="staff", is_staff=True)


@pytest.fixture
def lead(db):
    return UserFactory(username="lead")


@pytest.fixture
def project(lead):
    project = ProjectFactory(name="likert study", criteria=["fluency", "coherence"], raters_per_item=2)
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    return project


@pytest.fixture
def rater(project):
    return MembershipFactory(project=project, user=UserFactory(username="rater"), role=Membership.Role.RATER).user


@pytest.fixture
def lead_client(lead):
    return client_for(lead)


@pytest.fixture
def rater_client(rater):
    return client_for(rater)
