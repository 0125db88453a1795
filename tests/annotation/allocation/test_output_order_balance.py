"""Output order per rater: pairwise sides balanced per pair of systems and per system, RankME positions by a
Williams Latin square seeded per rater (the seed recorded in the rater's balance)."""

import random
from collections import Counter
from itertools import combinations

import pytest

from annotation.models import Assignment, Membership
from annotation.services import assignment_next_for_rater, judgment_submit
from annotation.task_types.pairwise import TYPE as PAIRWISE
from annotation.task_types.rankme import TYPE as RANKME
from annotation.task_types.rankme import williams_row
from tests.annotation.rating import add_raters, full_values, rating_project


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_williams_rows_form_a_latin_square(k):
    rows = [williams_row(k, r) for r in range(k)]
    assert all(sorted(row) == list(range(k)) for row in rows)
    assert all(sorted(col) == list(range(k)) for col in zip(*rows, strict=True))
    if k % 2 == 0:  # carry-over balance: every ordered pair of neighbours once
        follows = Counter((row[j], row[j + 1]) for row in rows for j in range(k - 1))
        assert set(follows.values()) == {1} and len(follows) == k * (k - 1)


def test_a_rankme_raters_screens_show_every_output_in_every_position_equally_often():
    balance, rng, systems = {}, random.Random(7), ["a", "b", "c", "d"]
    positions = Counter()
    for _ in range(4 * 5):
        order = RANKME.draw_order(systems, rng, balance)
        assert RANKME.order_record(balance, systems, order)
        positions.update((slot, shown) for slot, shown in enumerate(order))
    assert set(positions.values()) == {5}
    other = {}
    RANKME.draw_order(systems, random.Random(8), other)
    assert other[""]["seed"] != balance[""]["seed"]  # each rater's own, recorded seed


def test_pairwise_sides_balance_per_pair_of_systems_not_only_per_system():
    # One rater sees the pairs (a, b), (b, c), (c, a) in turn: per-system balance alone lets a pair's lower
    # name sit on the left every time
    balance, rng = {}, random.Random(3)
    left_of_pair = Counter()
    for n in range(60):
        systems = [("a", "b"), ("b", "c"), ("c", "a")][n % 3]
        order = PAIRWISE.draw_order(list(systems), rng, balance)
        PAIRWISE.order_record(balance, list(systems), order)
        left_of_pair[(tuple(sorted(systems)), systems[order[0]])] += 1
    for pair in combinations("abc", 2):
        assert left_of_pair[(pair, pair[0])] == left_of_pair[(pair, pair[1])] == 10
    assert all(abs(balance[s]) <= 1 for s in "abc")


@pytest.mark.django_db
def test_the_lease_records_the_rankme_order_of_the_latin_square():
    project = rating_project(task_type="rankme", n_items=6, criteria=["fluency"], systems=["x", "y", "z"])
    (rater,) = add_raters(project)
    orders = []
    while (assignment := assignment_next_for_rater(project_id=project.pk, rater=rater)) is not None:
        orders.append(tuple(assignment.shown_order))
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment))
    assert len(orders) == 6 and orders[:3] == orders[3:] and len(set(orders)) == 3
    assert Counter(o[0] for o in orders) == {0: 2, 1: 2, 2: 2}
    assert Membership.objects.get(project=project, user=rater).left_balance[""]["n"] == 6
    assert [
        tuple(a) for a in Assignment.objects.filter(rater=rater).order_by("id").values_list("shown_order", flat=True)
    ] == orders
