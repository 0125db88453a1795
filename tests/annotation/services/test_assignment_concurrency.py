"""The rater loop under contention on PostgreSQL: 40 raters, each a thread with its own connection,
race for the last slots (and for stale leases) under a quota per rater, while duplicate POSTs race for one
assignment."""

import threading
import time
from collections import Counter
from datetime import timedelta

import pytest
from django.db.models import Count
from django.utils import timezone

from annotation.models import Assignment, Item, ItemFlag, Judgment
from annotation.services import assignment_next_for_rater, item_flag_create, judgment_submit
from tests.annotation.rating import add_raters, full_values, rating_project
from tests.concurrency import run_threads

N_RATERS = 40
N_ITEMS = 24
N_TARGET = 2
QUOTA = 2  # 40 raters x 2 screens cover the 48 slots and the flagged screens; at least 12 raters reach it

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql]


def test_racing_raters_never_over_assign_lose_or_double_a_judgment():
    # Given 24 items wanting 2 raters each, at most 2 screens per rater, two stale leases nobody swept, and 40 raters
    project = rating_project(
        n_items=N_ITEMS, n_target=N_TARGET, criteria=["fluency", "coherence"], max_screens_per_rater=QUOTA
    )
    ghosts = add_raters(project, 2, prefix="ghost")
    for ghost in ghosts:
        assignment_next_for_rater(project_id=project.pk, rater=ghost, now=timezone.now() - timedelta(hours=1))
    raters = add_raters(project, N_RATERS)
    acknowledged, flagged, lock = Counter(), Counter(), threading.Lock()

    def rater_loop(i):
        rater = raters[i]
        while True:
            assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
            if assignment is None:
                # Nothing open now; a slot leased to another rater comes back if they flag its item, so a rater
                # asks again while any lease is out (without this, one run in eight ended with a flagged item's
                # slot open after every other rater had stopped asking).
                if not Item.objects.filter(project=project, n_leased__gt=0).exists():
                    return
                time.sleep(0.02)
                continue
            if i % 10 == 0 and not flagged[i]:  # a few raters flag their first item and move on
                item_flag_create(rater=rater, assignment_id=assignment.pk, reason="cannot_judge")
                with lock:
                    flagged[i] += 1
                continue
            values = full_values(assignment)
            token = f"{i}-{assignment.pk}"
            first = judgment_submit(rater=rater, assignment_id=assignment.pk, values=values, client_token=token)
            retry = judgment_submit(rater=rater, assignment_id=assignment.pk, values=values, client_token=token)
            assert first.created and not retry.created
            with lock:
                acknowledged[assignment.item_id] += 1

    # When they all work until nothing is left
    errors = run_threads(N_RATERS, rater_loop)

    # Then every slot was judged exactly once, and every lease is accounted for
    assert not errors, errors[:3]
    per_item = dict(
        Judgment.objects.filter(project=project, is_current=True)
        .values("item_id")
        .annotate(n=Count("rater_id", distinct=True))
        .values_list("item_id", "n")
    )
    items = list(Item.objects.filter(project=project))
    assert all(per_item.get(item.pk) == item.n_judged == N_TARGET for item in items)
    assert all(item.n_leased == 0 for item in items)
    assert sum(acknowledged.values()) == N_ITEMS * N_TARGET
    assert Judgment.objects.filter(project=project).count() == N_ITEMS * N_TARGET * 2 * 1  # 2 criteria, 1 output
    statuses = Counter(Assignment.objects.filter(project=project).values_list("status", flat=True))
    assert statuses == {"done": N_ITEMS * N_TARGET, "expired": len(ghosts), "skipped": sum(flagged.values())}
    assert ItemFlag.objects.filter(project=project).count() == sum(flagged.values())
    served = Counter(
        Assignment.objects.filter(project=project).exclude(status="expired").values_list("rater_id", flat=True)
    )
    assert max(served.values()) == QUOTA


def test_duplicate_posts_racing_for_one_assignment_store_one_judgment():
    project = rating_project(n_items=1, n_target=1, criteria=["fluency", "coherence"])
    (rater,) = add_raters(project)
    assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
    values = full_values(assignment)
    created = Counter()

    def post(i):
        result = judgment_submit(rater=rater, assignment_id=assignment.pk, values=values, client_token="same")
        created[result.created] += 1

    errors = run_threads(32, post)

    assert not errors, errors[:3]
    assert created == {True: 1, False: 31}
    assert Judgment.objects.filter(assignment=assignment).count() == 2
    assert Item.objects.get(pk=assignment.item_id).n_judged == 1
