"""Quotas and the balanced design through the HTTP API, starting with the failure of issue 18: in a pairwise
project with half the items double-annotated, the first rater took all 24 items, the second the 12 overlap
slots, and the third was told "All done" (0 items) while their instructions still offered "Start rating"."""

import pytest
from django.test import Client

from annotation.models import Assignment, Membership, RaterExclusion
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


def test_a_quota_of_twelve_gives_each_of_three_raters_twelve_and_every_pair_overlaps(lead):
    # Given the project (24 pairwise items, 2 raters on half of them: 36 slots) with at most 12 screens
    # per rater, and three raters who come one after the other
    pk, lead_client = study_create(lead, n_items=24, allocation={"max_screens_per_rater": 12})
    raters = [rater_join(lead_client, pk, f"r{i}") for i in range(3)]
    done = []
    for rater in raters:
        page = Client()
        page.force_login(rater)
        instructions = page.get(f"/projects/{pk}/instructions/").content.decode()
        # When each rates until told nothing is left
        done.append(rate_all(client_for(rater), pk))
        # Then the instructions never offered "Start rating" to a rater with nothing to rate
        assert ("Start rating" in instructions) == (done[-1] > 0)
    # Then the work is shared evenly, each pair shares the planned 4 units, and no item is over its target
    assert done == [12, 12, 12]
    assert sorted(shared_units(pk).values()) == [4, 4, 4]
    assert over_target(pk) == []
    design = lead_client.get(f"/api/v1/projects/{pk}/allocation/").json()["design"]
    assert design["per_rater"] == [12, 12, 12] and design["connected"]
    assert [p["shared_units"] for p in design["pairs"]] == [4, 4, 4]


def test_a_rater_past_their_quota_is_told_nothing_is_left_on_the_api_and_the_pages(lead):
    pk, lead_client = study_create(
        lead, n_items=10, double_annotation_share=0, allocation={"max_screens_per_rater": 3, "planned_raters": 1}
    )
    rater = rater_join(lead_client, pk, "r0")
    client = client_for(rater)

    assert rate_all(client, pk) == 3
    assert client.post(f"/api/v1/projects/{pk}/next/").status_code == 204
    page = Client()
    page.force_login(rater)
    page.get(f"/projects/{pk}/instructions/")
    finished = page.get(f"/projects/{pk}/rate/")
    assert "All done" in finished.content.decode()
    assert Assignment.objects.filter(project_id=pk, rater=rater).count() == 3


def test_a_raters_own_quota_overrides_the_projects(lead):
    pk, lead_client = study_create(
        lead, n_items=10, double_annotation_share=0, allocation={"max_screens_per_rater": 3, "planned_raters": 1}
    )
    rater = rater_join(lead_client, pk, "r0")
    response = lead_client.post(
        f"/api/v1/projects/{pk}/allocation/raters/",
        {"username": "r0", "max_screens": 5, "expected_screens": 4},
        format="json",
    )
    assert response.status_code == 200
    assert response.json() == {
        "username": "r0",
        "max_screens": 5,
        "expected_screens": 4,
        "quota": 5,
        "served": 0,
        "place": None,
    }
    assert lead_client.get(f"/api/v1/projects/{pk}/allocation/raters/").json()["results"] == [response.json()]

    assert rate_all(client_for(rater), pk) == 5


def test_without_a_planned_number_the_maximum_sizes_the_design_and_holds_shares_for_later_raters(lead):
    # 10 single items, at most 3 screens each: 4 places of 3, 3, 2, 2 screens
    pk, lead_client = study_create(lead, n_items=10, double_annotation_share=0, allocation={"max_screens_per_rater": 3})
    assert lead_client.get(f"/api/v1/projects/{pk}/allocation/").json()["design"]["per_rater"] == [3, 3, 2, 2]
    raters = [rater_join(lead_client, pk, f"r{i}") for i in range(4)]

    assert [rate_all(client_for(r), pk) for r in raters] == [3, 3, 2, 2]


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"max_screens_per_rater": 0}, "max_screens_per_rater"),
        ({"planned_raters": 63}, "planned_raters"),
        ({"min_pair_overlap": -1}, "min_pair_overlap"),
        ({"max_screens_per_rater": 3, "expected_screens_per_rater": 5}, "expected_screens_per_rater"),
        ({"max_screens_per_rater": "NaN"}, "max_screens_per_rater"),
    ],
)
def test_bad_allocation_settings_are_refused_naming_the_field(lead, payload, field):
    pk, lead_client = study_create(lead, n_items=2)

    response = lead_client.patch(f"/api/v1/projects/{pk}/allocation/", payload, format="json")

    assert response.status_code == 400
    assert field in response.content.decode()
    assert lead_client.get(f"/api/v1/projects/{pk}/allocation/").json()["max_screens_per_rater"] is None


def test_a_rater_who_joins_late_finds_their_share_waiting(lead):
    # Given 3 planned raters without a maximum: the first two rate everything open to them
    pk, lead_client = study_create(lead, n_items=24, allocation={"planned_raters": 3})
    early = [rater_join(lead_client, pk, f"r{i}") for i in range(2)]
    assert [rate_all(client_for(r), pk) for r in early] == [12, 12]
    # When the third joins days later, their 12 screens are still there
    late = rater_join(lead_client, pk, "r2")
    assert rate_all(client_for(late), pk) == 12
    assert sorted(shared_units(pk).values()) == [4, 4, 4]


def test_an_excluded_raters_place_and_judged_slots_are_served_again(lead):
    # Given 3 planned raters (a and c took places 1 and 2, b place 3) and judged items of an excluded rater
    # wanting a new rater
    pk, lead_client = study_create(
        lead, n_items=24, allocation={"planned_raters": 3, "replan_excluded_judgments": True, "vacated_hold_minutes": 0}
    )
    a, b, c = (rater_join(lead_client, pk, f"r{i}") for i in range(3))
    rate_one(client_for(a), pk)
    rate_one(client_for(c), pk)
    for _ in range(5):
        rate_one(client_for(b), pk)
    held = client_for(b).post(f"/api/v1/projects/{pk}/next/").json()["assignment_id"]
    # When the lead excludes b
    response = lead_client.post(
        f"/api/v1/projects/{pk}/qc/actions/",
        {"rater": "r1", "action": "exclude", "reason": "random clicking"},
        format="json",
    )
    assert response.status_code == 201, response.content
    # Then the lead is told what went back to the pool, b's lease is returned and their place freed
    assert "Re-planned" in response.json()["evidence"]["replan_message"]
    assert response.json()["evidence"]["replan"] == {
        "leases_returned": 1,
        "judged_slots_returned": 5,
        "place": 2,
        "hold_minutes": 0,
    }
    assert Assignment.objects.get(pk=held).status == Assignment.Status.EXPIRED
    assert Membership.objects.get(project_id=pk, user=b).plan_position is None
    # And a and c, with no maximum, coming back until neither gets a screen, take all of b's place's work at once
    # (no hold) and judge again what b judged: 36 slots and 5 more, less b's 5
    served = 2
    while True:
        rounds = [rate_one(client_for(r), pk) for r in (a, c)]
        served += sum(rounds)
        if not any(rounds):
            break
    assert served == 36
    judged = judged_items(pk)
    assert judged[b.pk] <= judged[a.pk] | judged[c.pk]
    assert over_target(pk) == []
    assert RaterExclusion.objects.filter(project_id=pk, rater=b).exists()


def test_the_instructions_offer_no_start_when_the_quota_is_used_up(lead):
    pk, lead_client = study_create(
        lead, n_items=6, double_annotation_share=0, allocation={"max_screens_per_rater": 2, "planned_raters": 1}
    )
    rater = rater_join(lead_client, pk, "r0")
    page = Client()
    page.force_login(rater)
    assert 'id="start"' in page.get(f"/projects/{pk}/instructions/").content.decode()

    rate_all(client_for(rater), pk)

    text = page.get(f"/projects/{pk}/instructions/").content.decode()
    assert 'id="start"' not in text and "Nothing is waiting for you" in text
    assert client_for(rater).get(f"/api/v1/projects/{pk}/progress/").json()["remaining"] == 0


def test_the_lead_sees_what_an_exclusion_re_planned_on_the_quality_page(lead):
    pk, lead_client = study_create(lead, n_items=12, allocation={"planned_raters": 2})
    rater = rater_join(lead_client, pk, "r0")
    rate_one(client_for(rater), pk)
    client_for(rater).post(f"/api/v1/projects/{pk}/next/")
    page = Client()
    page.force_login(lead)

    response = page.post(
        f"/projects/{pk}/raters/action/", {"rater": rater.pk, "action": "exclude", "reason": "careless"}, follow=True
    )

    text = response.content.decode()
    assert "Re-planned: 1 item r0 held went back to the pool" in text
    assert "their place 1 of the design is open" in text
