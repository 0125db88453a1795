"""Pausing a rater for good through the HTTP API: their unfinished work and their place in the design go back to
the pool (the allocation's release, as for an exclusion), their judgments still count, and the lead is told."""

import pytest
from django.test import Client

from annotation.models import Assignment, Membership, RaterAction, RaterExclusion
from tests.annotation.allocation.api_study import judged_items, over_target, rate_one, rater_join, study_create
from tests.annotation.factories import UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def lead():
    return UserFactory(username="lead", is_staff=True)


def test_a_rater_paused_for_good_gives_back_their_lease_and_place_and_others_take_their_work(lead):
    # Given 2 planned raters of 12 single-annotated items: a took place 1, b place 2, judged 2 and holds a lease
    pk, lead_client = study_create(
        lead, n_items=12, raters_per_item=1, double_annotation_share=0, allocation={"planned_raters": 2}
    )
    a, b = (rater_join(lead_client, pk, f"r{i}") for i in range(2))
    rate_one(client_for(a), pk)
    for _ in range(2):
        rate_one(client_for(b), pk)
    held = client_for(b).post(f"/api/v1/projects/{pk}/next/").json()["assignment_id"]
    # When the lead pauses b for good
    response = lead_client.post(
        f"/api/v1/projects/{pk}/qc/actions/",
        {"rater": "r1", "action": "pause_for_good", "reason": "left the study"},
        format="json",
    )
    assert response.status_code == 201, response.content
    # Then the lead is told what went back to the pool; b is paused, not excluded, their lease and place freed
    evidence = response.json()["evidence"]
    assert evidence["replan"] == {"leases_returned": 1, "judged_slots_returned": 0, "place": 1, "hold_minutes": 60}
    assert evidence["replan_message"].startswith("Re-planned: 1 item r1 held went back to the pool")
    assert Assignment.objects.get(pk=held).status == Assignment.Status.EXPIRED
    membership = Membership.objects.get(project_id=pk, user=b)
    assert membership.is_paused and membership.plan_position is None
    assert not RaterExclusion.objects.filter(project_id=pk, rater=b).exists()
    assert RaterAction.objects.filter(project_id=pk, rater=b, kind="pause").count() == 1
    assert client_for(b).post(f"/api/v1/projects/{pk}/next/").status_code == 403
    # And a, coming back until nothing is left, judges every item b did not: b's place's work included
    while rate_one(client_for(a), pk):
        pass
    judged = judged_items(pk)
    assert len(judged[a.pk]) == 10 and len(judged[b.pk]) == 2 and not judged[a.pk] & judged[b.pk]
    assert over_target(pk) == []


def test_the_lead_sees_the_re_plan_of_a_pause_for_good_on_the_quality_page(lead):
    pk, lead_client = study_create(lead, n_items=12, allocation={"planned_raters": 2})
    rater = rater_join(lead_client, pk, "r0")
    client_for(rater).post(f"/api/v1/projects/{pk}/next/")
    page = Client()
    page.force_login(lead)
    assert 'value="pause_for_good"' in page.get(f"/projects/{pk}/raters/").content.decode()

    response = page.post(
        f"/projects/{pk}/raters/action/",
        {"rater": rater.pk, "action": "pause_for_good", "reason": "left the study"},
        follow=True,
    )

    text = response.content.decode()
    assert "Re-planned: 1 item r0 held went back to the pool" in text
    assert "their place 1 of the design is open" in text
