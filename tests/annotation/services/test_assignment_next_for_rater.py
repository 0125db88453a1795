"""assignment_next_for_rater: resume, overlap-aware order, targets, expiry, gold, order balance, refusals."""

import random
from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Assignment, Item, Judgment, Project
from annotation.selectors import assignment_screen, rater_progress
from annotation.services import (
    NotARater,
    ProjectNotFound,
    ProjectNotLive,
    RaterPaused,
    assignment_expire,
    assignment_leases_release,
    assignment_next_for_rater,
    degraded_controls_create,
    item_flag_create,
    judgment_submit,
)
from tests.annotation.rating import add_raters, full_values, rating_project

pytestmark = pytest.mark.django_db


def judge(assignment, rater):
    return judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment))


def test_a_rater_resumes_the_lease_they_hold():
    project = rating_project()
    (rater,) = add_raters(project)

    first = assignment_next_for_rater(project_id=project.pk, rater=rater)
    again = assignment_next_for_rater(project_id=project.pk, rater=rater)

    assert again.pk == first.pk
    assert Item.objects.get(pk=first.item_id).n_leased == 1


def test_items_started_by_others_come_before_untouched_ones():
    project = rating_project(n_items=3, n_target=2)
    a, b, c = add_raters(project, 3)

    first = assignment_next_for_rater(project_id=project.pk, rater=a)
    second = assignment_next_for_rater(project_id=project.pk, rater=b)
    third = assignment_next_for_rater(project_id=project.pk, rater=c)

    assert second.item_id == first.item_id  # b completes what a started
    assert third.item_id != first.item_id  # the item is full: c opens a new one


def test_a_rater_never_gets_an_item_twice():
    project = rating_project(n_items=2, n_target=2)
    (rater,) = add_raters(project)

    seen = []
    while (assignment := assignment_next_for_rater(project_id=project.pk, rater=rater)) is not None:
        seen.append(assignment.item_id)
        judge(assignment, rater)

    assert sorted(seen) == sorted(Item.objects.filter(project=project).values_list("id", flat=True))


def test_no_item_gets_more_raters_than_its_target():
    project = rating_project(n_items=1, n_target=2)
    raters = add_raters(project, 3)

    leases = [assignment_next_for_rater(project_id=project.pk, rater=r) for r in raters]

    assert leases[2] is None
    item = Item.objects.get(project=project)
    assert (item.n_leased, item.n_judged) == (2, 0)


def test_items_full_of_imported_judgments_are_not_served():
    project = rating_project(n_items=2, n_target=2)
    (rater,) = add_raters(project)
    full = Item.objects.filter(project=project).order_by("id").first()
    Item.objects.filter(pk=full.pk).update(n_judged=2)

    assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)

    assert assignment.item_id != full.pk


def test_an_expired_lease_returns_the_slot_without_a_sweeper():
    project = rating_project(n_items=1, n_target=1, lease_seconds=60)
    a, b = add_raters(project, 2)
    first = assignment_next_for_rater(project_id=project.pk, rater=a)
    assert assignment_next_for_rater(project_id=project.pk, rater=b) is None

    later = timezone.now() + timedelta(seconds=61)
    second = assignment_next_for_rater(project_id=project.pk, rater=b, now=later)

    assert second.item_id == first.item_id
    first.refresh_from_db()
    assert first.status == Assignment.Status.EXPIRED
    assert Item.objects.get(pk=first.item_id).n_leased == 1


def test_assignment_expire_counts_and_gives_slots_back():
    project = rating_project(n_items=2, n_target=1, lease_seconds=60)
    raters = add_raters(project, 2)
    for r in raters:
        assignment_next_for_rater(project_id=project.pk, rater=r)

    assert assignment_expire(project_id=project.pk) == 0
    assert assignment_expire(project_id=project.pk, now=timezone.now() + timedelta(seconds=61)) == 2
    assert list(Item.objects.filter(project=project).values_list("n_leased", flat=True)) == [0, 0]


def test_releasing_leases_lowers_each_item_by_its_own_leases():
    # Given three raters leasing one item (which wants three: the first rater's pick, started for the others)
    # and a fourth leasing the other
    project = rating_project(n_items=2, n_target=3)
    raters = add_raters(project, 4)
    leases = [assignment_next_for_rater(project_id=project.pk, rater=r) for r in raters[:3]]
    first, second = sorted(Item.objects.filter(project=project), key=lambda item: item.pk != leases[0].item_id)
    Item.objects.filter(pk=first.pk).update(n_target=0)  # the fourth rater gets the second item
    other = assignment_next_for_rater(project_id=project.pk, rater=raters[3])
    assert {a.item_id for a in leases} == {first.pk} and other.item_id == second.pk

    assignment_leases_release([(a.pk, a.item_id) for a in leases[:2]] + [(other.pk, other.item_id)])

    assert [Item.objects.get(pk=item.pk).n_leased for item in (first, second)] == [1, 0]
    statuses = dict(Assignment.objects.filter(project=project).values_list("id", "status"))
    assert statuses == {leases[0].pk: "expired", leases[1].pk: "expired", leases[2].pk: "active", other.pk: "expired"}


def test_judging_frees_the_lease_and_counts_the_rater():
    project = rating_project(n_items=1, n_target=2)
    (rater,) = add_raters(project)
    assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)

    judge(assignment, rater)

    item = Item.objects.get(project=project)
    assert (item.n_leased, item.n_judged) == (0, 1)


def test_gold_items_are_interleaved_once_per_rater_and_look_like_any_item():
    project = rating_project(n_items=4, n_gold=2, gold_rate=0.5)
    (rater,) = add_raters(project)
    always_gold = random.Random()
    always_gold.random = lambda: 0.0

    served = []
    while (a := assignment_next_for_rater(project_id=project.pk, rater=rater, rng=always_gold)) is not None:
        served.append(a.item.pk)
        screen = assignment_screen(a)
        assert set(screen["item"]) == {"input", "turns", "references", "modulus", "outputs"}
        assert all(set(o) == {"position", "text"} for o in screen["item"]["outputs"])
        judge(a, rater)

    gold = set(Item.objects.filter(project=project, gold__isnull=False).values_list("id", flat=True))
    assert [i in gold for i in served[:2]] == [True, True]  # drawn first while work remains
    assert len(served) == len(set(served)) == 6


def test_gold_may_come_last_since_progress_counts_it_like_any_screen():
    # Given one work item and one gold item, and a draw that picks the last screen of the urn
    project = rating_project(n_items=1, n_gold=1, gold_rate=0.5)
    (rater,) = add_raters(project)
    always_last = random.Random()
    always_last.random = lambda: 0.999
    assert rater_progress(project=project, rater=rater)["remaining"] == 2  # the work and the planned check

    a = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=always_last)
    judge(a, rater)
    assert rater_progress(project=project, rater=rater)["remaining"] == 1
    b = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=always_last)
    judge(b, rater)

    # Then the gold check came last, and "left" counted down to it as it did to the work
    assert (a.served_as, b.served_as) == ("work", "gold") and Item.objects.get(pk=b.item_id).is_gold
    assert rater_progress(project=project, rater=rater)["remaining"] == 0
    assert assignment_next_for_rater(project_id=project.pk, rater=rater, rng=always_last) is None


def test_degraded_copies_are_mixed_in_at_random_positions_not_served_last():
    project = rating_project(n_items=30, n_target=4)
    degraded_controls_create(project=project, n=6, seed=0)
    positions = []
    for k, rater in enumerate(add_raters(project, 4)):
        rng, served = random.Random(k), []
        while (a := assignment_next_for_rater(project_id=project.pk, rater=rater, rng=rng)) is not None:
            served.append(a.served_as)
            judge(a, rater)
        positions += [i for i, kind in enumerate(served) if kind == "degraded"]
        assert served.count("degraded") == 6 and len(served) == 36
    # Their id order would put all 24 among the last six screens of each session (30 to 35)
    assert min(positions) < 10 and sum(p < 30 for p in positions) >= 12


def test_pairwise_sides_are_balanced_per_rater():
    project = rating_project(task_type="pairwise", n_items=20, criteria=["overall"])
    (rater,) = add_raters(project)

    left = Counter()
    while (a := assignment_next_for_rater(project_id=project.pk, rater=rater, rng=random.Random(7))) is not None:
        left[a.shown_order[0]] += 1
        judge(a, rater)

    assert left == {0: 10, 1: 10}


def test_outputs_are_shown_in_a_recorded_random_order():
    project = rating_project(task_type="rankme", n_items=1, systems=["s1", "s2", "s3", "s4"])
    (rater,) = add_raters(project)

    a = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=random.Random(3))

    assert sorted(a.shown_order) == [0, 1, 2, 3]
    texts = [o["text"] for o in assignment_screen(a)["item"]["outputs"]]
    assert texts == [f"s{p + 1} on {a.item.external_id}" for p in a.shown_order]


def test_a_flagged_and_skipped_item_is_not_served_to_that_rater_again():
    project = rating_project(n_items=1, n_target=2)
    a, b = add_raters(project, 2)
    lease = assignment_next_for_rater(project_id=project.pk, rater=a)

    item_flag_create(rater=a, assignment_id=lease.pk, reason="broken", comment="empty output")

    assert assignment_next_for_rater(project_id=project.pk, rater=a) is None
    assert assignment_next_for_rater(project_id=project.pk, rater=b).item_id == lease.item_id
    assert not Judgment.objects.exists()


def test_outsiders_leads_paused_raters_and_projects_not_live_are_refused(lead):
    project = rating_project()
    (rater,) = add_raters(project)
    (outsider,) = add_raters(rating_project(), prefix="outsider")
    project.memberships.create(user=lead, role="lead")

    with pytest.raises(ProjectNotFound):
        assignment_next_for_rater(project_id=project.pk, rater=outsider)
    with pytest.raises(NotARater):
        assignment_next_for_rater(project_id=project.pk, rater=lead)
    project.memberships.filter(user=rater).update(is_paused=True)
    with pytest.raises(RaterPaused, match="paused your work"):
        assignment_next_for_rater(project_id=project.pk, rater=rater)
    project.memberships.filter(user=rater).update(is_paused=False)
    Project.objects.filter(pk=project.pk).update(status=Project.Status.PAUSED)
    project.refresh_from_db()
    with pytest.raises(ProjectNotLive, match="paused"):
        assignment_next_for_rater(project_id=project.pk, rater=rater)
