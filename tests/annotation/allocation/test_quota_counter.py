"""The quota's counter of screens served (Membership.screens_counted): it never falls below the exact count, so a
quota is never passed, and the quota's end is decided on the exact count, so expired leases give screens back;
alone and under racing clients on PostgreSQL, with leases expiring under them."""

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.utils import timezone

from annotation.models import Assignment, Judgment, Membership
from annotation.services import LeaseGone, assignment_expire, assignment_next_for_rater, judgment_submit
from annotation.services.allocation import allocation_rater_quota_set
from tests.annotation.factories import UserFactory
from tests.annotation.rating import ControlsFirst, add_raters, full_values, rating_project
from tests.concurrency import run_threads


def _served(project, rater) -> int:
    return Assignment.objects.filter(project=project, rater=rater).exclude(status="expired").count()


def _counted(project, rater) -> int | None:
    return Membership.objects.get(project=project, user=rater).screens_counted


def _judge_next(project, rater):
    assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
    if assignment is not None:
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment))
    return assignment


@pytest.mark.django_db
def test_a_quota_set_after_screens_served_without_one_counts_them():
    # Given a rater who judged 3 screens while no quota applied
    project = rating_project(n_items=10)
    (rater,) = add_raters(project)
    for _ in range(3):
        _judge_next(project, rater)
    assert _counted(project, rater) is None

    # When the lead gives them a quota of 5
    allocation_rater_quota_set(project=project, rater=rater, by=UserFactory(), max_screens=5)

    # Then they are served 2 more screens, not 5
    assert [_judge_next(project, rater) is not None for _ in range(3)] == [True, True, False]
    assert _served(project, rater) == 5


@pytest.mark.django_db
def test_a_quota_lifted_and_set_again_counts_the_screens_served_meanwhile():
    project = rating_project(n_items=10)
    (rater,) = add_raters(project)
    lead = UserFactory()
    allocation_rater_quota_set(project=project, rater=rater, by=lead, max_screens=2)
    _judge_next(project, rater)
    assert _counted(project, rater) == 1

    allocation_rater_quota_set(project=project, rater=rater, by=lead, max_screens=None)
    for _ in range(3):
        _judge_next(project, rater)
    assert _counted(project, rater) is None  # a lease without a quota empties it: it would fall behind

    allocation_rater_quota_set(project=project, rater=rater, by=lead, max_screens=6)
    assert [_judge_next(project, rater) is not None for _ in range(3)] == [True, True, False]
    assert _served(project, rater) == 6


@pytest.mark.django_db
def test_an_expired_lease_gives_its_screen_back_to_the_quota():
    # Given a rater at their quota of 3 with one lease still open
    project = rating_project(n_items=10, lease_seconds=60)
    (rater,) = add_raters(project)
    allocation_rater_quota_set(project=project, rater=rater, by=UserFactory(), max_screens=3)
    _judge_next(project, rater)
    _judge_next(project, rater)
    open_lease = assignment_next_for_rater(project_id=project.pk, rater=rater)
    assert open_lease is not None and _counted(project, rater) == 3

    # When the lease expires, the counter still says 3 (it errs high), but the exact count says 2
    assignment_expire(project_id=project.pk, now=timezone.now() + timedelta(minutes=5))
    assert _counted(project, rater) == 3

    # Then the next call recounts and serves one more screen, and then none
    assert _judge_next(project, rater) is not None
    assert _judge_next(project, rater) is None
    assert _served(project, rater) == 3


QUOTA, N_RATERS, TABS = 6, 4, 3


@pytest.mark.django_db(transaction=True)
def test_racing_clients_with_leases_expiring_under_them_end_exactly_at_their_quotas():
    if connection.vendor != "postgresql":
        pytest.skip("SKIP LOCKED races need PostgreSQL")
    # Given 4 raters with a quota of 6 each, 3 racing tabs per rater, and plenty of work
    project = rating_project(n_items=60, n_target=2, lease_seconds=600)
    raters = add_raters(project, N_RATERS)
    lead = UserFactory()
    for rater in raters:
        allocation_rater_quota_set(project=project, rater=rater, by=lead, max_screens=QUOTA)
    expiring = threading.Event()

    def tab(i):
        if i == N_RATERS * TABS:  # the sweeper: expires every running lease, over and over, while the tabs work
            while not expiring.is_set():
                assignment_expire(project_id=project.pk, now=timezone.now() + timedelta(hours=1))
                time.sleep(0.005)
            return
        rater = raters[i % N_RATERS]
        while (assignment := assignment_next_for_rater(project_id=project.pk, rater=rater)) is not None:
            # Some leases are abandoned (the sweeper expires them); the others are judged unless it got there first
            if assignment.pk % 3 == 0 and not expiring.is_set():
                time.sleep(0.005)
                continue
            try:
                judgment_submit(
                    rater=rater,
                    assignment_id=assignment.pk,
                    values=full_values(assignment),
                    client_token=f"tab{i}-{assignment.pk}",
                )
            except LeaseGone:
                pass

    def stop_expiring_when_the_tabs_are_half_way():
        while Judgment.objects.filter(project=project, is_current=True).count() < N_RATERS * QUOTA // 2:
            time.sleep(0.01)
        expiring.set()
        connections.close_all()

    stopper = threading.Thread(target=stop_expiring_when_the_tabs_are_half_way)
    stopper.start()
    errors = run_threads(N_RATERS * TABS + 1, tab)
    expiring.set()
    stopper.join(60)

    # Then no error, leases did expire, and every rater ends with exactly their quota of screens, all judged
    assert not errors, errors[:3]
    assert Assignment.objects.filter(project=project, status="expired").exists()
    for rater in raters:
        assert _served(project, rater) == QUOTA
        assert Judgment.objects.filter(project=project, rater=rater, is_current=True).count() == QUOTA
        assert _counted(project, rater) >= QUOTA


@pytest.mark.django_db
def test_control_screens_count_against_the_quota_as_work_screens_do():
    # Given a project checking raters with gold items, and a rater with a quota of 5 screens
    project = rating_project(n_items=10, n_gold=4, gold_rate=0.5)
    (rater,) = add_raters(project)
    allocation_rater_quota_set(project=project, rater=rater, by=UserFactory(), max_screens=5)
    # When they ask for screens, each one served first a control whenever one may come (ControlsFirst)
    kinds = []
    for _ in range(6):
        assignment = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=ControlsFirst())
        if assignment is None:
            break
        kinds.append(assignment.served_as)
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment))
        # Then the counter follows the exact count on every screen, controls and work alike
        assert _counted(project, rater) == _served(project, rater)
    # And they are served exactly their quota, controls among it
    assert len(kinds) == 5 and _served(project, rater) == 5
    assert Assignment.ServedAs.GOLD in kinds and Assignment.ServedAs.WORK in kinds
