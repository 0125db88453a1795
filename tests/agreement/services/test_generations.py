"""Generations of snapshot rows: readers see the project's current one only, a switch is one row's update that
never goes back to an older generation, the rows it replaced are deleted after, and a failed recompute's rows
go without touching the current ones."""

import threading
from datetime import date
from unittest import mock

import pytest
from django.db import connections
from django.utils import timezone

from agreement.engine.rows import SNAPSHOT_FIELDS
from agreement.models import AgreementSnapshot, SnapshotGeneration
from agreement.selectors.snapshots import latest_week
from agreement.services.generations import (
    snapshot_generation_discard,
    snapshot_generation_make_current,
    snapshot_generation_new,
    snapshot_generations_prune,
    snapshot_rows_replace,
    snapshot_rows_write,
)
from agreement.services.recompute import agreement_recompute_start
from tests.annotation.factories import ProjectFactory


def rows(project, value: float, n: int, week: date = date(2026, 11, 30)) -> list[tuple]:
    """``n`` rows of one week, each holding ``value``, in SNAPSHOT_FIELDS order."""
    fields = {
        "project": project.id,
        "window": "cumulative",
        "week_start": week,
        "scope": "overall",
        "criterion": None,
        "subgroup": "",
        "rater_a": None,
        "rater_b": None,
        "statistic": "krippendorff_alpha",
        "is_main": False,
        "value": value,
        "ci_low": None,
        "ci_high": None,
        "ci_method": "",
        "n_units": 10,
        "n_raters": 3,
        "n_pairable": 10,
        "status": "ok",
        "reason": "",
        "unreliable": False,
        "detail": {},
        "computed_at": timezone.now(),
        "rating_unit": "conversation",
    }
    return [tuple(fields.get(f, f"overall-{k}") for f in SNAPSHOT_FIELDS) for k in range(n)]


def seen(project) -> tuple[int, frozenset[float]]:
    values = list(AgreementSnapshot.objects.filter(project=project).values_list("value", flat=True))
    return len(values), frozenset(values)


@pytest.mark.django_db
def test_readers_see_the_current_generation_only_and_the_replaced_one_goes_after():
    project = ProjectFactory()
    first = snapshot_generation_new(project_id=project.id)
    snapshot_rows_replace(project_id=project.id, generation=first, rows=rows(project, 0.5, 4))
    assert seen(project) == (4, {0.5})

    # written under a new generation, committed: not seen until it is made current
    second = snapshot_generation_new(project_id=project.id)
    assert second > first
    snapshot_rows_write(generation=second, rows=rows(project, 0.9, 3))
    assert seen(project) == (4, {0.5})
    assert set(project.agreement_snapshots.values_list("value", flat=True)) == {0.5}  # the related manager too
    assert AgreementSnapshot.all_generations.filter(project=project).count() == 7

    assert snapshot_generation_make_current(project_id=project.id, generation=second)
    assert seen(project) == (3, {0.9})
    assert AgreementSnapshot.objects.for_project(project.id).count() == 3
    assert snapshot_generations_prune(project_id=project.id) == 4
    assert set(AgreementSnapshot.all_generations.filter(project=project).values_list("generation", flat=True)) == {
        second
    }


@pytest.mark.django_db
def test_a_switch_never_goes_back_to_an_older_generation():
    project = ProjectFactory()
    earlier, later = (snapshot_generation_new(project_id=project.id) for _ in range(2))
    snapshot_rows_write(generation=earlier, rows=rows(project, 0.1, 2))
    snapshot_rows_write(generation=later, rows=rows(project, 0.2, 2))
    assert snapshot_generation_make_current(project_id=project.id, generation=later)
    assert not snapshot_generation_make_current(project_id=project.id, generation=earlier)  # finished last
    assert seen(project) == (2, {0.2})
    snapshot_generations_prune(project_id=project.id)
    assert AgreementSnapshot.all_generations.filter(project=project).count() == 2


@pytest.mark.django_db
def test_discarding_deletes_a_failed_generation_but_never_the_current_one():
    project = ProjectFactory()
    current, failed = (snapshot_generation_new(project_id=project.id) for _ in range(2))
    snapshot_rows_replace(project_id=project.id, generation=current, rows=rows(project, 0.3, 2))
    snapshot_rows_write(generation=failed, rows=rows(project, 0.4, 5))
    snapshot_generation_discard(project_id=project.id, generation=failed)
    snapshot_generation_discard(project_id=project.id, generation=current)  # failed after its switch: kept
    assert seen(project) == (2, {0.3})
    assert AgreementSnapshot.all_generations.filter(project=project).count() == 2


@pytest.mark.django_db
def test_rows_of_another_project_or_generation_do_not_reach_a_reader():
    project, other = ProjectFactory(), ProjectFactory()
    for p, value in ((project, 0.6), (other, 0.7)):
        snapshot_rows_replace(
            project_id=p.id, generation=snapshot_generation_new(project_id=p.id), rows=rows(p, value, 2)
        )
    snapshot_rows_write(
        generation=snapshot_generation_new(project_id=other.id), rows=rows(other, 0.8, 2, date(2026, 12, 7))
    )
    assert seen(project) == (2, {0.6}) and seen(other) == (2, {0.7})
    assert latest_week(other) == date(2026, 11, 30)  # not the later week of the generation not current yet
    assert AgreementSnapshot.objects.count() == 4
    assert SnapshotGeneration.objects.get(project=other).last == 2


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgresql
def test_a_reader_racing_the_switches_sees_one_generation_whole():
    """A thread reads the rows over and over (its own connection) while generations of 300 and of 200 rows
    replace each other: every read is one of them, whole."""
    project = ProjectFactory()
    sets = [rows(project, 1.0, 300), rows(project, 2.0, 200)]
    snapshot_rows_replace(
        project_id=project.id, generation=snapshot_generation_new(project_id=project.id), rows=sets[0]
    )
    reads, done = [], threading.Event()

    def reader():
        try:
            while not done.is_set():
                reads.append(seen(project))
        finally:
            connections.close_all()

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for k in range(1, 9):
            generation = snapshot_generation_new(project_id=project.id)
            snapshot_rows_replace(project_id=project.id, generation=generation, rows=sets[k % 2])
    finally:
        done.set()
        thread.join(30)
    assert len(reads) > 8
    assert set(reads) <= {(300, frozenset({1.0})), (200, frozenset({2.0}))}


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgresql
def test_generations_handed_out_and_switched_at_once_in_parallel():
    """Eight threads ask for a generation at the same moment, then make theirs current at the same moment: every
    number differs, and the latest is current whoever switched last."""
    project = ProjectFactory()
    start, numbers, switched, errors = threading.Barrier(8), [], [], []

    def recompute():
        try:
            start.wait(10)
            generation = snapshot_generation_new(project_id=project.id)
            numbers.append(generation)
            start.wait(10)
            switched.append(snapshot_generation_make_current(project_id=project.id, generation=generation))
        except Exception as exc:
            errors.append(repr(exc))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=recompute) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert sorted(numbers) == list(range(1, 9))
    assert SnapshotGeneration.objects.get(project=project).current == 8 and True in switched


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgresql
def test_recomputes_requested_at_once_share_one_job():
    """Four requests at the same moment (each its own connection and transaction) get one job: no two recomputes
    of a project write generations side by side. The job is not queued (it would run eagerly, and could finish
    before a request looks)."""
    project = ProjectFactory()
    start, jobs, errors = threading.Barrier(4), [], []
    not_queued = mock.patch("agreement.services.recompute.queued_job")

    def request():
        try:
            start.wait(10)
            jobs.append(agreement_recompute_start(project=project, user=None).id)
        except Exception as exc:
            errors.append(repr(exc))
        finally:
            connections.close_all()

    with not_queued as queued_job:
        queued_job.return_value.delay.return_value = None
        threads = [threading.Thread(target=request) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    assert errors == [] and len(jobs) == 4 and len(set(jobs)) == 1
    assert queued_job.return_value.delay.call_count == 1


@pytest.mark.django_db
def test_deleting_a_project_deletes_the_rows_of_every_generation():
    project = ProjectFactory()
    snapshot_rows_replace(
        project_id=project.id, generation=snapshot_generation_new(project_id=project.id), rows=rows(project, 0.1, 2)
    )
    snapshot_rows_write(generation=snapshot_generation_new(project_id=project.id), rows=rows(project, 0.2, 3))
    project.delete()
    assert not AgreementSnapshot.all_generations.exists() and not SnapshotGeneration.objects.exists()
