"""Raters working as rate.js does (the screen after the current one leased ahead, each answer followed by the
promotion of the screen ahead and a new lease ahead) racing on PostgreSQL: targets, quotas and exactly-once
judgments hold, and every lease ends returned or judged."""

import threading
from collections import Counter

import pytest
from django.db.models import Count

from annotation.models import Assignment, Item, Judgment
from annotation.services import assignment_ahead_for_rater, assignment_next_for_rater, judgment_submit
from tests.annotation.rating import add_raters, full_values, rating_project
from tests.concurrency import run_threads

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql]

N_ITEMS, TARGET, N_RATERS, QUOTA = 30, 2, 6, 12


def work_ahead(project, rater, token_prefix: str) -> list[int]:
    """The rater's whole session with a screen leased ahead; returns the items judged."""
    judged = []
    current = assignment_next_for_rater(project_id=project.pk, rater=rater)
    while current is not None:
        assignment_ahead_for_rater(project_id=project.pk, rater=rater)
        assert Assignment.objects.filter(project=project, rater=rater, status="active").count() <= 2
        result = judgment_submit(
            rater=rater,
            assignment_id=current.pk,
            values=full_values(current),
            client_token=f"{token_prefix}-{current.pk}",
        )
        if result.created:
            judged.append(current.item_id)
        current = assignment_ahead_for_rater(project_id=project.pk, rater=rater, shown_now=True).current
    return judged


def test_raters_leasing_ahead_keep_targets_quotas_and_exactly_once_judgments():
    project = rating_project(n_items=N_ITEMS, n_target=TARGET, max_screens_per_rater=QUOTA)
    raters = add_raters(project, N_RATERS)
    acknowledged, lock = Counter(), threading.Lock()

    def rater_loop(i):
        judged = work_ahead(project, raters[i], f"r{i}")
        with lock:
            acknowledged.update(judged)

    errors = run_threads(N_RATERS, rater_loop)

    assert not errors, errors[:3]
    items = list(Item.objects.filter(project=project))
    per_item = dict(
        Judgment.objects.filter(project=project)
        .values("item_id")
        .annotate(n=Count("rater_id", distinct=True))
        .values_list("item_id", "n")
    )
    assert all(per_item.get(item.pk, 0) == item.n_judged == acknowledged[item.pk] <= TARGET for item in items)
    assert all(item.n_leased == 0 for item in items)
    assert Judgment.objects.filter(project=project).count() == sum(acknowledged.values())
    served = Counter(
        Assignment.objects.filter(project=project).exclude(status="expired").values_list("rater_id", flat=True)
    )
    assert max(served.values()) <= QUOTA
    # 6 raters × 12 screens cover the 60 slots: all were judged
    assert sum(item.n_judged for item in items) == N_ITEMS * TARGET


def test_one_raters_tabs_leasing_ahead_never_pass_their_quota():
    project = rating_project(n_items=10, max_screens_per_rater=5)
    (rater,) = add_raters(project)

    errors = run_threads(4, lambda _: work_ahead(project, rater, "tab"))

    assert not errors, errors[:3]
    assert Assignment.objects.filter(project=project, rater=rater).exclude(status="expired").count() == 5
    assert Judgment.objects.filter(project=project, rater=rater).count() == 5
    assert not Assignment.objects.filter(project=project, rater=rater, status="active").exists()
