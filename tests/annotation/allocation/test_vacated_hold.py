"""A vacated place's shared units wait for the rater who takes the place over (the project's hold), through the
HTTP API: that rater shares with the place's partners what the design planned; other raters are served the place's
single units at once and its shared ones only once the hold has passed; a rater is never offered work the hold
keeps from them."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Item, Project
from tests.annotation.allocation.api_study import (
    judged_items,
    over_target,
    rate_all,
    rate_one,
    rater_join,
    shared_units,
    study_create,
)
from tests.annotation.factories import UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def lead():
    return UserFactory(username="lead", is_staff=True)


def _excluded_midway(lead):
    """3 planned raters of 24 pairwise items, half of them double-annotated (12 screens per place, 4 units shared
    by each pair of places): a and b rate all their own work, c judges 2 items and is excluded."""
    pk, lead_client = study_create(
        lead, n_items=24, allocation={"planned_raters": 3, "replan_excluded_judgments": True}
    )
    a, b, c = (rater_join(lead_client, pk, f"r{i}") for i in range(3))
    assert [rate_all(client_for(r), pk) for r in (a, b)] == [12, 12]
    assert [rate_one(client_for(c), pk) for _ in range(2)] == [True, True]
    response = lead_client.post(
        f"/api/v1/projects/{pk}/qc/actions/",
        {"rater": "r2", "action": "exclude", "reason": "random clicking"},
        format="json",
    )
    assert response.status_code == 201, response.content
    replan = response.json()["evidence"]
    assert replan["replan"]["hold_minutes"] == 60
    assert "wait 60 minutes for that rater" in replan["replan_message"]
    place = 1 << replan["replan"]["place"]
    return pk, lead_client, (a, b, c), place


def _open_items(pk):
    return {
        item.pk: item.plan_mask
        for item in Item.objects.filter(project_id=pk)
        if item.n_judged + item.n_leased < item.n_target
    }


def test_the_rater_taking_a_vacated_place_over_shares_the_planned_units_with_its_partners(lead):
    pk, lead_client, (a, b, c), place = _excluded_midway(lead)

    # When a and b come back for more within the hold
    rate_all(client_for(a), pk)
    rate_all(client_for(b), pk)

    # Then they took the vacated place's single units, and what is left is its shared units, every one
    left = _open_items(pk)
    assert left and all(mask & place and mask.bit_count() == 2 for mask in left.values())
    # And neither is told there is more for them
    assert [client_for(r).get(f"/api/v1/projects/{pk}/progress/").json()["remaining"] for r in (a, b)] == [0, 0]

    # When d joins and takes the place over
    d = rater_join(lead_client, pk, "r3")
    rate_all(client_for(d), pk)

    # Then d shares with a and with b the 4 units the design planned for each pair, and every item is done
    shared = shared_units(pk)
    assert shared[tuple(sorted((a.pk, d.pk)))] >= 4 and shared[tuple(sorted((b.pk, d.pk)))] >= 4
    assert _open_items(pk) == {} and over_target(pk) == []
    assert judged_items(pk)[c.pk] <= judged_items(pk)[d.pk] | judged_items(pk)[a.pk] | judged_items(pk)[b.pk]


def test_once_the_hold_has_passed_other_raters_take_the_shared_units(lead):
    pk, _, (a, b, _), place = _excluded_midway(lead)
    rate_all(client_for(a), pk)
    rate_all(client_for(b), pk)
    assert _open_items(pk)

    # When nobody took the place over and the hold has passed
    vacated_at = Project.objects.get(pk=pk).plan_vacated_at
    (key,) = vacated_at
    Project.objects.filter(pk=pk).update(plan_vacated_at={key: (timezone.now() - timedelta(minutes=61)).isoformat()})

    # Then a and b are offered the rest and do it
    assert client_for(a).get(f"/api/v1/projects/{pk}/progress/").json()["remaining"] > 0
    rate_all(client_for(a), pk)
    rate_all(client_for(b), pk)
    assert _open_items(pk) == {} and over_target(pk) == []


def test_a_hold_of_zero_gives_the_shared_units_away_at_once(lead):
    pk, lead_client, (a, b, _), _ = _excluded_midway(lead)
    response = lead_client.patch(f"/api/v1/projects/{pk}/allocation/", {"vacated_hold_minutes": 0}, format="json")
    assert response.status_code == 200 and response.json()["vacated_hold_minutes"] == 0

    rate_all(client_for(a), pk)
    rate_all(client_for(b), pk)

    assert _open_items(pk) == {}


@pytest.mark.parametrize("value", [-1, 7 * 24 * 60 + 1, 1.5, "soon", True])
def test_a_bad_hold_is_refused_naming_the_field(lead, value):
    pk, lead_client = study_create(lead, n_items=4, allocation={"planned_raters": 2})

    response = lead_client.patch(f"/api/v1/projects/{pk}/allocation/", {"vacated_hold_minutes": value}, format="json")

    assert response.status_code == 400 and "vacated_hold_minutes" in response.content.decode()
    assert Project.objects.get(pk=pk).vacated_hold_minutes == 60
