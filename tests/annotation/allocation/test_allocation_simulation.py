"""A study simulated through the HTTP API: 6 raters join over time and rate at different speeds under a
quota, one is excluded midway and the last to join takes their place over. Every rater gets work until their
quota or the pool ends, each pair of raters the design plans to overlap shares at least its planned units (the
rater who took the place over too: its shared units waited for them), no item goes over its target, and the
excluded rater's slots (their lease and what they judged) are served again."""

import pytest

from annotation.models import Assignment, Item, Membership
from tests.annotation.allocation.api_study import judged_items, over_target, rate_one, rater_join, study_create
from tests.annotation.factories import UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

N_ITEMS = 60  # 30 double-annotated, 30 single: 90 slots, 18 for each of 5 places
PLACES = 5
QUOTA = 20
JOIN_AT = (0, 0, 2, 4, 7, 12)  # the tick each rater joins at
SPEED = (1, 3, 2, 1, 2, 1)  # screens per tick
EXCLUDED, EXCLUDE_AT = 2, 6


def test_six_raters_joining_over_time_with_a_quota_and_an_exclusion():
    lead = UserFactory(username="lead", is_staff=True)
    pk, lead_client = study_create(
        lead,
        n_items=N_ITEMS,
        allocation={
            "planned_raters": PLACES,
            "max_screens_per_rater": QUOTA,
            "min_pair_overlap": 2,
            "replan_excluded_judgments": True,
        },
    )
    design = lead_client.get(f"/api/v1/projects/{pk}/allocation/").json()["design"]
    assert design["per_rater"] == [18] * PLACES and design["connected"] and not design["warnings"]
    planned = {tuple(p["places"]): p["shared_units"] for p in design["pairs"]}
    assert min(n for n in planned.values() if n) >= 2

    raters, clients, first_answer, stopped = [], [], {}, set()
    excluded_place = None
    tick = 0
    while len(stopped) < len(JOIN_AT) - 1 or tick <= max(JOIN_AT):
        for i, at in enumerate(JOIN_AT):
            if at == tick:
                raters.append(rater_join(lead_client, pk, f"r{i}"))
                clients.append(client_for(raters[-1]))
        if tick == EXCLUDE_AT:
            # b holds a lease when excluded
            assert clients[EXCLUDED].post(f"/api/v1/projects/{pk}/next/").status_code == 200
            response = lead_client.post(
                f"/api/v1/projects/{pk}/qc/actions/",
                {"rater": f"r{EXCLUDED}", "action": "exclude", "reason": "failed the checks"},
                format="json",
            )
            assert response.status_code == 201
            replan = response.json()["evidence"]["replan"]
            assert replan["leases_returned"] == 1 and replan["judged_slots_returned"] > 0
            excluded_place = replan["place"]
            stopped.discard(EXCLUDED)
        for i, client in enumerate(clients):
            if i == EXCLUDED and tick >= EXCLUDE_AT:
                continue
            for _ in range(SPEED[i]):
                got = rate_one(client, pk)
                first_answer.setdefault(i, got)
                if not got:
                    stopped.add(i)
                    break
                stopped.discard(i)
        tick += 1
        assert tick < 200, "the simulation does not end"
    # Everyone still in comes back once more: nothing is left for anyone
    assert not any(rate_one(c, pk) for i, c in enumerate(clients) if i != EXCLUDED)

    # Every rater got work on their first visit, and stopped only at their quota or when the pool ended
    assert all(first_answer[i] for i in range(len(JOIN_AT)))
    served = {r.pk: Assignment.objects.filter(project_id=pk, rater=r).exclude(status="expired").count() for r in raters}
    assert all(served[r.pk] <= QUOTA for r in raters)
    items = list(Item.objects.filter(project_id=pk))
    assert all(item.n_judged >= item.n_target and item.n_leased == 0 for item in items), "work left undone"
    assert over_target(pk) == []
    # Each pair of raters still in shares at least what the design planned for their places
    place = dict(
        Membership.objects.filter(project_id=pk, plan_position__isnull=False).values_list("user_id", "plan_position")
    )
    judged = judged_items(pk)
    staying = [r for i, r in enumerate(raters) if i != EXCLUDED]
    for a in staying:
        for b in staying:
            pa, pb = place[a.pk] + 1, place[b.pk] + 1
            if pa < pb:
                assert len(judged[a.pk] & judged[b.pk]) >= planned[(pa, pb)], (pa, pb)
    # The excluded rater's slots were served again: each item they judged has its full target of other raters
    excluded = raters[EXCLUDED]
    assert excluded_place is not None and excluded.pk not in place and place[raters[-1].pk] == excluded_place
    targets = {item.pk: item.n_target for item in items}
    for item in judged[excluded.pk]:
        others = sum(1 for r in staying if item in judged[r.pk])
        assert others == targets[item] - 1
