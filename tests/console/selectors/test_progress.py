"""progress_summary on a project in a known state: every number recomputed here from the fixture's table."""

import statistics
from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection

from annotation.models import Assignment, Judgment, Membership
from console.selectors.progress import ETA_MIN_SLOTS, progress_summary
from console.selectors.progress_model import LeaseHolder, Leases, RaterThroughput
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.console.fixtures import NOW, SCREENS, known_project

pytestmark = pytest.mark.django_db


def test_item_states_and_slots():
    world = known_project()
    items = progress_summary(world.project, now=NOW).items
    # i0..i3 have both raters, i4 i5 one, i6 only leases, i7..i9 nothing; g0 g1 are gold.
    assert (items.complete, items.in_progress, items.untouched, items.gold) == (4, 3, 3, 2)
    assert items.n_items == 12 and items.n_target_items == 10
    filled = sum(min(len({r for r, i, _, _ in SCREENS if i == name}), 2) for name in (f"i{k}" for k in range(10)))
    assert (items.slots_target, items.slots_filled, items.slots_remaining) == (20, filled, 20 - filled)
    assert items.percent_complete == round(100 * filled / 20, 1) == 50.0


def test_judgments_and_screens_per_day_count_current_judgments_only():
    world = known_project()
    per_day = progress_summary(world.project, now=NOW).per_day
    screens = Counter((served + timedelta(seconds=s)).date() for _, _, served, s in SCREENS)
    assert [(d.day, d.judgments, d.screens) for d in per_day] == [
        (day, screens[day], screens[day]) for day in sorted(screens)
    ]
    assert [d.judgments for d in per_day] == [2, 4, 5]  # r2's revision of i0 replaced a row, added none


def test_rater_throughput_and_median_time_per_item():
    world = known_project()
    summary = progress_summary(world.project, now=NOW)
    assert summary.median_seconds_per_item == statistics.median(s for *_, s in SCREENS) == 50
    rows = {row.rater: row for row in summary.raters}
    for name in ("r1", "r2"):
        mine = [(served, s) for r, _, served, s in SCREENS if r == name]
        days = {(served + timedelta(seconds=s)).date() for served, s in mine}
        row = rows[f"known-{name}"]
        assert (row.judgments, row.screens, row.active_days) == (len(mine), len(mine), len(days))
        assert row.judgments_per_day == round(len(mine) / len(days), 1)
        assert row.median_seconds_per_item == statistics.median(s for _, s in mine)
        assert row.last_active == max(served + timedelta(seconds=s) for served, s in mine)
    assert rows["known-r1"].median_seconds_per_item == 45 and rows["known-r2"].median_seconds_per_item == 65
    assert rows["known-r3"] == RaterThroughput(
        rater="known-r3",
        is_paused=False,
        judgments=0,
        screens=0,
        active_days=0,
        judgments_per_day=None,
        screens_per_day=None,
        last_active=None,
        median_seconds_per_item=None,
    )


def test_leases_held_now_leave_out_expired_ones():
    world = known_project()
    leases = progress_summary(world.project, now=NOW).leases
    assert leases == Leases(
        n_active=1,
        oldest_age_seconds=30 * 60,
        raters=[LeaseHolder(rater="known-r3", n=1, oldest_age_seconds=30 * 60)],
    )


def test_eta_from_the_recent_rate_of_filled_slots():
    world = known_project()
    eta = progress_summary(world.project, now=NOW).eta
    # Ten target slots filled (g0 is gold: not a slot), the first at the earliest completion.
    recent = [served + timedelta(seconds=s) for _, item, served, s in SCREENS if item != "g0"]
    span = (NOW - min(recent)).total_seconds()
    remaining = 10
    assert eta.status == "estimated" and eta.n_recent == len(recent) == 10
    assert eta.seconds == round(remaining / (len(recent) / span)) == 179970
    assert eta.finish_at == NOW + timedelta(seconds=remaining / (len(recent) / span))
    assert eta.slots_per_hour == round(len(recent) / span * 3600, 2)
    assert "last 7 days" in eta.based_on


def test_eta_says_not_enough_data_with_few_recent_slots():
    world = known_project()
    # A week later every slot filled above is outside the window.
    eta = progress_summary(world.project, now=NOW + timedelta(days=8)).eta
    assert eta.status == "not_enough_data" and eta.seconds is None and eta.n_recent == 0
    assert f"at least {ETA_MIN_SLOTS}" in eta.based_on


def test_an_empty_project():
    project = ProjectFactory()
    summary = progress_summary(project, now=NOW)
    assert summary.items.percent_complete is None and summary.per_day == []
    assert summary.eta.status == "done" and summary.median_seconds_per_item is None
    assert summary.leases == Leases(n_active=0, oldest_age_seconds=None, raters=[])


def _screens_today(world, rater_names, item_names, seconds=30):
    """A done screen with its judgment for each rater on each item, today."""
    criterion = world.project.criteria.get()
    for rater_name in rater_names:
        rater = world.raters.get(rater_name)
        if rater is None:
            rater = UserFactory(username=f"extra-{rater_name}")
            MembershipFactory(project=world.project, user=rater, role=Membership.Role.RATER)
        for item_name in item_names:
            item = world.items[item_name]
            served = NOW - timedelta(hours=1)
            assignment = Assignment.objects.create(
                project=world.project,
                item=item,
                rater=rater,
                status=Assignment.Status.DONE,
                expires_at=served + timedelta(minutes=15),
                completed_at=served + timedelta(seconds=seconds),
            )
            Assignment.objects.filter(pk=assignment.pk).update(served_at=served)
            Judgment.objects.create(
                project=world.project,
                item=item,
                output=item.outputs.get(),
                criterion=criterion,
                rater=rater,
                assignment=assignment,
                value=3,
                submitted_at=served + timedelta(seconds=seconds),
            )


class _Reads:
    """The queries run and the rows they answered."""

    def __init__(self):
        self.queries, self.rows = 0, 0

    def __call__(self, execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        self.queries += 1
        self.rows += context["cursor"].rowcount
        return result


def _reads(project) -> tuple[int, int]:
    reads = _Reads()
    with connection.execute_wrapper(reads):
        progress_summary(project, now=NOW)
    return reads.queries, reads.rows


def test_queries_do_not_grow_with_the_project_nor_rows_with_its_judgments():
    small = _reads(known_project().project)
    large = known_project(extra_untouched=40)
    # Eighty more screens and judgments, on days r1 and r2 were active already.
    _screens_today(large, ["r1", "r2"], [f"i{k}" for k in range(7, 47)])
    assert _reads(large.project) == small
    medians = {row.rater: row.median_seconds_per_item for row in progress_summary(large.project, now=NOW).raters}
    assert medians["known-r1"] == statistics.median([s for r, *_, s in SCREENS if r == "r1"] + [30] * 40)


def test_query_count_does_not_grow_with_raters(django_assert_num_queries):
    world = known_project()
    with django_assert_num_queries(7):
        progress_summary(world.project, now=NOW)
    _screens_today(world, [f"r{k}" for k in range(4, 24)], ["i7", "i8"])
    with django_assert_num_queries(7):
        summary = progress_summary(world.project, now=NOW)
    assert len(summary.raters) == 23


def test_a_retired_item_leaves_the_target_slots():
    from annotation.services.item_changes import item_retire

    world = known_project()
    before = progress_summary(world.project, now=NOW).items
    item_retire(project=world.project, item=world.items["i7"], by=None)  # untouched, wanted by two raters
    after = progress_summary(world.project, now=NOW).items
    assert after.slots_target == before.slots_target - 2
    assert after.slots_remaining == before.slots_remaining - 2 and after.slots_filled == before.slots_filled
