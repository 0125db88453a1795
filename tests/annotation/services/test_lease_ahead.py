"""assignment_ahead_for_rater: the screen after the current one, leased while the rater works on the current one."""

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Assignment, Item
from annotation.services import (
    RaterPaused,
    assignment_ahead_for_rater,
    assignment_expire,
    assignment_next_for_rater,
    judgment_submit,
    rater_pause,
)
from tests.annotation.factories import ItemFactory, UserFactory
from tests.annotation.rating import ControlsFirst, add_raters, full_values, rating_project

pytestmark = pytest.mark.django_db


def judge(assignment, rater):
    return judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment))


def test_the_screen_ahead_is_a_second_lease_and_asking_again_gives_the_same_one():
    project = rating_project(n_items=4)
    (rater,) = add_raters(project)
    current = assignment_next_for_rater(project_id=project.pk, rater=rater)

    leases = assignment_ahead_for_rater(project_id=project.pk, rater=rater)
    again = assignment_ahead_for_rater(project_id=project.pk, rater=rater)

    assert leases.current.pk == current.pk and leases.ahead.item_id != current.item_id
    assert again.current.pk == current.pk and again.ahead.pk == leases.ahead.pk
    assert Assignment.objects.filter(rater=rater, status="active").count() == 2
    assert Item.objects.get(pk=leases.ahead.item_id).n_leased == 1
    # the current screen stays the one the rater is on, whatever they hold ahead
    assert assignment_next_for_rater(project_id=project.pk, rater=rater).pk == current.pk


def test_once_the_current_screen_is_judged_the_one_ahead_is_current_and_its_lease_starts_over():
    project = rating_project(n_items=4, lease_seconds=600)
    (rater,) = add_raters(project)
    start = timezone.now()
    current = assignment_next_for_rater(project_id=project.pk, rater=rater, now=start)
    ahead = assignment_ahead_for_rater(project_id=project.pk, rater=rater, now=start).ahead
    judge(current, rater)

    shown = start + timedelta(seconds=300)
    leases = assignment_ahead_for_rater(project_id=project.pk, rater=rater, shown_now=True, now=shown)

    assert leases.current.pk == ahead.pk
    ahead.refresh_from_db()
    assert (ahead.served_at, ahead.expires_at) == (shown, shown + timedelta(seconds=600))
    assert leases.ahead is not None and leases.ahead.pk not in (current.pk, ahead.pk)
    assert assignment_next_for_rater(project_id=project.pk, rater=rater).pk == ahead.pk


def test_a_rater_who_leaves_holds_the_screen_ahead_no_longer_than_a_lease():
    project = rating_project(n_items=3, lease_seconds=60)
    rater, other = add_raters(project, 2)
    start = timezone.now()
    assignment_next_for_rater(project_id=project.pk, rater=rater, now=start)
    ahead = assignment_ahead_for_rater(project_id=project.pk, rater=rater, now=start).ahead

    assert assignment_expire(project_id=project.pk, now=start + timedelta(seconds=59)) == 0
    assert assignment_expire(project_id=project.pk, now=start + timedelta(seconds=61)) == 2

    assert list(Item.objects.filter(project=project).values_list("n_leased", flat=True)) == [0, 0, 0]
    served = [assignment_next_for_rater(project_id=project.pk, rater=other, now=start + timedelta(seconds=62))]
    for _ in range(2):
        judge(served[-1], other)
        served.append(assignment_next_for_rater(project_id=project.pk, rater=other, now=start + timedelta(seconds=62)))
    assert ahead.item_id in {a.item_id for a in served}


def test_at_the_quota_s_end_there_is_no_screen_ahead():
    project = rating_project(n_items=6, max_screens_per_rater=3)
    (rater,) = add_raters(project)
    served = []
    current = assignment_next_for_rater(project_id=project.pk, rater=rater)
    while current is not None:
        served.append(current.pk)
        leases = assignment_ahead_for_rater(project_id=project.pk, rater=rater)
        judge(current, rater)
        current = assignment_ahead_for_rater(project_id=project.pk, rater=rater, shown_now=True).current
        if leases.ahead is None:
            assert current is None
    assert len(served) == 3
    assert Assignment.objects.filter(rater=rater).exclude(status="expired").count() == 3


def test_an_item_leased_ahead_counts_against_its_target():
    project = rating_project(n_items=2, n_target=1)
    rater, other = add_raters(project, 2)
    assignment_next_for_rater(project_id=project.pk, rater=rater)
    assert assignment_ahead_for_rater(project_id=project.pk, rater=rater).ahead is not None

    assert assignment_next_for_rater(project_id=project.pk, rater=other) is None


def test_no_screen_is_leased_ahead_of_a_training_screen():
    project = rating_project(n_items=3, training_items=1)
    ItemFactory(project=project, n_target=0, gold={"fluency": {"s": 5}}, systems=["s"], training=True)
    (rater,) = add_raters(project)
    training = assignment_next_for_rater(project_id=project.pk, rater=rater)
    assert training.served_as == Assignment.ServedAs.TRAINING

    assert assignment_ahead_for_rater(project_id=project.pk, rater=rater).ahead is None
    judge(training, rater)
    work = assignment_next_for_rater(project_id=project.pk, rater=rater)
    assert assignment_ahead_for_rater(project_id=project.pk, rater=rater).ahead.pk != work.pk


def test_controls_are_leased_ahead_as_any_screen_and_the_session_is_drawn_the_same():
    def session(ahead: bool) -> list[str]:
        project = rating_project(n_items=8, gold_rate=0.3, n_gold=4)
        (rater,) = add_raters(project)
        kinds, rng = [], ControlsFirst()
        current = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=rng)
        while current is not None:
            kinds.append(current.served_as)
            if ahead:
                assignment_ahead_for_rater(project_id=project.pk, rater=rater, rng=rng)
            judge(current, rater)
            current = (
                assignment_ahead_for_rater(project_id=project.pk, rater=rater, shown_now=True, rng=rng).current
                if ahead
                else assignment_next_for_rater(project_id=project.pk, rater=rater, rng=rng)
            )
        return kinds

    with_ahead = session(ahead=True)
    assert with_ahead == session(ahead=False)
    assert "gold" in with_ahead and "work" in with_ahead


def test_a_paused_rater_gets_no_screen_ahead():
    project = rating_project(n_items=3)
    (rater,) = add_raters(project)
    lead = UserFactory()
    assignment_next_for_rater(project_id=project.pk, rater=rater)
    rater_pause(project=project, rater=rater, by=lead, reason="too fast")

    with pytest.raises(RaterPaused):
        assignment_ahead_for_rater(project_id=project.pk, rater=rater, rng=random.Random(0))
