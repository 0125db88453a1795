"""Per-rater item order through the HTTP API: each rater is served the work in their own pseudo-random order,
reproducible from the seed recorded on their membership."""

import pytest

from annotation.models import Assignment, Item, Membership
from annotation.services.assignment import ORDER_PRIME, order_key_params
from tests.annotation.allocation.api_study import rate_all, rater_join, study_create
from tests.annotation.factories import UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def served_items(pk: int, rater) -> list[int]:
    return list(Assignment.objects.filter(project_id=pk, rater=rater).order_by("id").values_list("item_id", flat=True))


def recorded_order(pk: int, rater, items: list[int]) -> list[int]:
    a, b = order_key_params(Membership.objects.get(project_id=pk, user=rater).order_seed)
    return sorted(items, key=lambda i: ((i % ORDER_PRIME) * a + b) % ORDER_PRIME)


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
