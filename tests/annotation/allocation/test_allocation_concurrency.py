"""Quotas and the design under real concurrency on PostgreSQL: raters as threads with their own connections,
a lead excluding one of them while they work, and one rater's requests racing each other past their quota."""

import threading
import time
from collections import Counter

import pytest
from django.db.models import Count

from annotation.models import Assignment, Item, Judgment, Membership
from annotation.services import RaterPaused, assignment_next_for_rater, judgment_submit, rater_exclude
from annotation.services.allocation import allocation_rater_quota_set, allocation_settings_update
from tests.annotation.factories import ItemFactory, UserFactory
from tests.annotation.rating import add_raters, full_values, rating_project
from tests.annotation.services.test_assignment_concurrency import run_threads

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql]

N_ITEMS = 60  # every other one double-annotated: 90 slots
PLACES, QUOTA = 8, 16
N_RATERS = 10  # two more than places: one of them takes the excluded rater's place over
EXCLUDED, EXCLUDE_AFTER = 3, 4


def _designed_project():
    project = rating_project(task_type="pairwise", n_items=0, criteria=["overall"])
    for i in range(N_ITEMS):
        ItemFactory(project=project, n_target=2 if i % 2 == 0 else 1, systems=["bart", "t5"])
    lead = UserFactory(username=f"lead{project.pk}")
    project = allocation_settings_update(
        project=project, by=lead, planned_raters=PLACES, max_screens_per_rater=QUOTA, replan_excluded_judgments=True
    )
    return project, lead


def test_racing_raters_keep_quotas_targets_and_planned_pairs_while_one_is_excluded():
    # Given 8 places of a design over 90 slots, a quota of 16, and 10 raters racing from the start
    project, lead = _designed_project()
    planned_masks = dict(Item.objects.filter(project=project).values_list("id", "plan_mask"))
    raters = add_raters(project, N_RATERS)
    acknowledged, lock, judged_by_excluded = Counter(), threading.Lock(), threading.Event()
    exclusion_done = threading.Event()
    # The rater to be excluded has a place (the first): the other places are raced for
    first = assignment_next_for_rater(project_id=project.pk, rater=raters[EXCLUDED])
    judgment_submit(rater=raters[EXCLUDED], assignment_id=first.pk, values=full_values(first))
    acknowledged[first.item_id] += 1
    vacated_place = Membership.objects.get(project=project, user=raters[EXCLUDED]).plan_position
    assert vacated_place is not None

    def rater_loop(i):
        rater, idle = raters[i], 0
        # A rater with nothing now comes back a little later, as the unplaced ones must, and stops after three
        # answers of nothing asked for once the exclusion was done
        while idle < 3:
            after_exclusion = exclusion_done.is_set()
            try:
                assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
                if assignment is not None:
                    result = judgment_submit(
                        rater=rater,
                        assignment_id=assignment.pk,
                        values=full_values(assignment),
                        client_token=f"{i}-{assignment.pk}",
                    )
            except RaterPaused:  # the excluded rater is paused: refused from then on, a lease or an answer
                assert i == EXCLUDED
                return
            if assignment is None:
                idle += after_exclusion
                time.sleep(0.3)
                continue
            idle = 0
            assert result.created
            with lock:
                acknowledged[assignment.item_id] += 1
            if i == EXCLUDED and Assignment.objects.filter(rater=rater, status="done").count() >= EXCLUDE_AFTER:
                judged_by_excluded.set()
                time.sleep(0.05)

    def lead_excludes(_):
        try:
            assert judged_by_excluded.wait(60)
            rater_exclude(project=project, rater=raters[EXCLUDED], by=lead, reason="failed the checks")
        finally:
            exclusion_done.set()

    # When they all work, and the lead excludes one of them midway
    errors = run_threads(N_RATERS + 1, lambda i: rater_loop(i) if i < N_RATERS else lead_excludes(i))

    # Then no error, no item over its target, every judgment stored once, every quota kept
    assert not errors, errors[:3]
    items = {item.pk: item for item in Item.objects.filter(project=project)}
    per_item = dict(
        Judgment.objects.filter(project=project, is_current=True)
        .values("item_id")
        .annotate(n=Count("rater_id", distinct=True))
        .values_list("item_id", "n")
    )
    assert all(per_item.get(pk, 0) == item.n_judged <= item.n_target for pk, item in items.items())
    assert all(item.n_leased == 0 for item in items.values())
    assert sum(acknowledged.values()) == Judgment.objects.filter(project=project).count()
    served = Counter(
        Assignment.objects.filter(project=project).exclude(status="expired").values_list("rater_id", flat=True)
    )
    assert max(served.values()) <= QUOTA
    # And every slot was served, the excluded rater's again to others
    assert all(item.n_judged == item.n_target for item in items.values()), "work left undone"
    excluded = raters[EXCLUDED]
    mine = set(Assignment.objects.filter(rater=excluded, status="done").values_list("item_id", flat=True))
    assert mine and all(items[pk].n_target == (2 if planned_masks[pk].bit_count() == 2 else 1) + 1 for pk in mine)
    # And every pair of places shares at least what the design planned, the excluded rater's place too: an
    # unplaced rater took it over, and its shared units waited for them (the project's hold)
    place = dict(
        Membership.objects.filter(project=project, plan_position__isnull=False).values_list("user_id", "plan_position")
    )
    assert sorted(place.values()) == list(range(PLACES))
    judged = {}
    for rater, item in Assignment.objects.filter(project=project, status="done").values_list("rater_id", "item_id"):
        judged.setdefault(rater, set()).add(item)
    stayed = [r.pk for r in raters if r.pk in place]
    assert excluded.pk not in stayed and vacated_place in {place[r] for r in stayed}
    # And every rater holding a place got work (the one who took the vacated place over included)
    assert all(judged.get(r) for r in stayed)
    for a in stayed:
        for b in stayed:
            bits = (1 << place[a]) | (1 << place[b])
            planned = sum(1 for mask in planned_masks.values() if mask & bits == bits)
            if a < b:
                assert len(judged[a] & judged[b]) >= planned


def test_one_raters_racing_requests_never_pass_their_quota():
    project, lead = _designed_project()
    (rater,) = add_raters(project)
    allocation_rater_quota_set(project=project, rater=rater, by=lead, max_screens=5)

    def rater_tab(_):
        while (assignment := assignment_next_for_rater(project_id=project.pk, rater=rater)) is not None:
            judgment_submit(
                rater=rater,
                assignment_id=assignment.pk,
                values=full_values(assignment),
                client_token=f"tab-{assignment.pk}",
            )

    errors = run_threads(8, rater_tab)

    assert not errors, errors[:3]
    assert Assignment.objects.filter(project=project, rater=rater).exclude(status="expired").count() == 5
    assert Judgment.objects.filter(project=project, rater=rater).count() == 5
