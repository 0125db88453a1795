"""A judgment import holds its project's row exclusively while it writes, and then updates the counters of
the items it touched. A rater asking for an item, submitting one, or a lead removing a rater, in that
project at the same moment, lock an item (or a lease) and then need the project row's shared lock for
their first insert: taken in that order they deadlocked against the import. They now take the project row
first and wait for the import instead. PostgreSQL, each side a thread with its own connection."""

import importlib
import threading
import time

import pytest
from django.db import connections

from annotation.models import Assignment, Item, Judgment
from annotation.services import assignment_next_for_rater, item_import, judgment_import, judgment_submit
from staffing.services import team_rater_remove
from tests.annotation.factories import ProjectFactory, UserFactory
from tests.annotation.import_lines import item, jsonl
from tests.annotation.rating import add_raters, full_values

judgment_import_module = importlib.import_module("annotation.services.judgment_import")

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql]


@pytest.fixture
def project():
    project = ProjectFactory(name="import race", criteria=["fluency"], raters_per_item=2)
    item_import(project=project, stream=jsonl(item("d1", ("bart",)), item("d2", ("bart",))))
    return project


def race_the_import(project, monkeypatch, other) -> list[str]:
    """Runs ``other`` in a thread while the import of one judgment on d1 holds the project row (it pauses
    there for a second), and returns the errors of both sides."""
    errors, holding = [], threading.Event()
    pseudonymous_raters = judgment_import_module._pseudonymous_raters

    def stalled(*args):
        raters = pseudonymous_raters(*args)
        holding.set()
        time.sleep(1.0)
        return raters

    monkeypatch.setattr(judgment_import_module, "_pseudonymous_raters", stalled)

    def run_other():
        try:
            holding.wait(10)
            other()
        except Exception as exc:  # the test reports whatever failed, deadlocks included
            errors.append(f"{other.__name__}: {type(exc).__name__}: {exc}")
        finally:
            connections.close_all()

    thread = threading.Thread(target=run_other)
    thread.start()
    try:
        judgment_import(
            project=project,
            stream=jsonl({"item": "d1", "rater": "w1", "criterion": "fluency", "system": "bart", "value": 4}),
        )
    except Exception as exc:
        errors.append(f"import: {type(exc).__name__}: {exc}")
    thread.join(30)
    return errors


def test_a_lease_waits_for_the_import(project, monkeypatch):
    (rater,) = add_raters(project, prefix="lease")

    def lease():
        assignment_next_for_rater(project_id=project.pk, rater=rater)

    assert race_the_import(project, monkeypatch, lease) == []
    assert Assignment.objects.filter(rater=rater, status="active").count() == 1
    assert sum(Item.objects.filter(project=project).values_list("n_leased", flat=True)) == 1


def test_a_submission_waits_for_the_import(project, monkeypatch):
    (rater,) = add_raters(project, prefix="submit")
    assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)

    def submit():
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, 3))

    assert race_the_import(project, monkeypatch, submit) == []
    assert Judgment.objects.filter(project=project).count() == 2
    d1 = Item.objects.get(project=project, external_id="d1")
    assert d1.n_judged == Judgment.objects.filter(item=d1).values("rater").distinct().count()


def test_a_removal_waits_for_the_import(project, monkeypatch):
    (rater,) = add_raters(project, prefix="remove")
    assignment_next_for_rater(project_id=project.pk, rater=rater)
    lead = UserFactory(username="remover")

    def remove():
        team_rater_remove(project=project, rater=rater, by=lead)

    assert race_the_import(project, monkeypatch, remove) == []
    assert not Assignment.objects.filter(rater=rater, status="active").exists()
    assert sum(Item.objects.filter(project=project).values_list("n_leased", flat=True)) == 0
