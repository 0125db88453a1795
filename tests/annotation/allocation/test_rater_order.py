"""Per-rater item order through the HTTP API: each rater is served the work in their own pseudo-random order,
reproducible from the seed recorded on their membership."""

import random
import statistics

import pytest

from annotation.models import Assignment, Item, Membership
from annotation.services.assignment import order_key, order_key_params
from tests.annotation.allocation.api_study import rate_all, rater_join, study_create
from tests.annotation.factories import UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def served_items(pk: int, rater) -> list[int]:
    return list(Assignment.objects.filter(project_id=pk, rater=rater).order_by("id").values_list("item_id", flat=True))


def recorded_order(pk: int, rater, items: list[int]) -> list[int]:
    params = order_key_params(Membership.objects.get(project_id=pk, user=rater).order_seed)
    return sorted(items, key=lambda i: (order_key(i, params), i))


def test_each_rater_is_served_in_their_own_order_reproducible_from_their_recorded_seed():
    # Given 30 single-annotated items and two raters who each rate a third of them, one after the other
    lead = UserFactory(username="lead", is_staff=True)
    pk, lead_client = study_create(lead, n_items=30, raters_per_item=1, double_annotation_share=0)
    raters = [rater_join(lead_client, pk, f"r{i}") for i in range(2)]
    for rater in raters:
        assert rate_all(client_for(rater), pk, limit=10) == 10
    first, second = (served_items(pk, rater) for rater in raters)
    # Then neither is served in id order, and the orders differ between raters
    assert first != sorted(first) and second != sorted(second)
    assert (
        Membership.objects.get(project_id=pk, user=raters[0]).order_seed
        != Membership.objects.get(project_id=pk, user=raters[1]).order_seed
    )
    # And each rater's order is the one their recorded seed gives: the first rater took the first ten of all
    # thirty items in their order, the second the first ten of the twenty left in theirs
    all_items = list(Item.objects.filter(project_id=pk).values_list("id", flat=True))
    assert first == recorded_order(pk, raters[0], all_items)[:10]
    left = [i for i in all_items if i not in first]
    assert second == recorded_order(pk, raters[1], left)[:10]


def test_a_designed_projects_rater_is_served_their_places_items_in_their_recorded_order():
    # Given 40 double-annotated items planned for 4 places, then 20 more imported (the design planned anew)
    lead = UserFactory(username="lead", is_staff=True)
    pk, lead_client = study_create(
        lead, n_items=40, raters_per_item=2, double_annotation_share=1, allocation={"planned_raters": 4}
    )
    more = "\n".join(
        f'{{"external_id": "late{i}", "input": "s", "outputs": [{{"system": "bart", "text": "b"}}, '
        f'{{"system": "t5", "text": "t"}}]}}'
        for i in range(20)
    )
    response = lead_client.post(f"/api/v1/projects/{pk}/items/import/", data=more, content_type="application/x-ndjson")
    assert response.status_code in (200, 201), response.content
    # When the first rater rates twelve screens
    rater = rater_join(lead_client, pk, "r0")
    assert rate_all(client_for(rater), pk, limit=12) == 12
    # Then they were served items of their place only, in the order their recorded seed gives among all of them
    # (read mask by mask, the late items included), not in id order
    bit = 1 << Membership.objects.get(project_id=pk, user=rater).plan_position
    own = [pk_ for pk_, mask in Item.objects.filter(project_id=pk).values_list("id", "plan_mask") if mask & bit]
    assert len(own) == 30 and any(Item.objects.filter(pk__in=own, external_id__startswith="late"))
    served = served_items(pk, rater)
    assert served == recorded_order(pk, rater, own)[:12]
    assert served != sorted(served)


def longest_ascending_run(order: list[int]) -> int:
    run = longest = 1
    for before, after in zip(order, order[1:], strict=False):
        run = run + 1 if after > before else 1
        longest = max(longest, run)
    return longest


@pytest.mark.parametrize("step", [1, 3])
def test_the_order_key_shuffles_evenly_spaced_ids_like_a_random_permutation(step):
    # Given 30 items with evenly spaced ids (as a project's are) and 2,000 raters' recorded seeds
    from scipy.stats import binomtest, kendalltau

    ids = [797 + step * j for j in range(30)]
    seeds = random.Random(step).sample(range(2**62), 2000)
    taus, long_runs, sorted_starts = [], 0, 0
    for seed in seeds:
        params = order_key_params(seed)
        order = sorted(ids, key=lambda i: (order_key(i, params), i))
        taus.append(kendalltau(ids, order).statistic)
        long_runs += longest_ascending_run(order) >= 6
        sorted_starts += order[:10] == sorted(order[:10])
    # Then the orders' agreement with id order spreads as a shuffle's does (the standard deviation of Kendall's
    # tau over random permutations of 30 is sqrt(2 (2n + 5) / (9 n (n - 1))) = 0.131; a single affine key spread
    # it to about 0.24), centred on 0; ascending runs of 6 or more come as often as in shuffles (0.0295 of them,
    # from 10^6 shuffles; a single product of affine maps gave more), and no rater's first ten come
    # out in id order (a shuffle: 1 in 10!)
    assert 0.12 < statistics.pstdev(taus) < 0.142 and abs(statistics.fmean(taus)) < 0.01
    assert binomtest(long_runs, len(seeds), 0.0295).pvalue > 0.001
    assert sorted_starts == 0
