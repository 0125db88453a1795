"""A study driven through the HTTP API, as a lead and raters would: create, import, add raters, rate."""

import json
from collections import Counter
from itertools import combinations

from annotation.models import Assignment, Item
from tests.annotation.factories import UserFactory
from tests.conftest import client_for


def study_create(
    lead,
    *,
    n_items: int,
    task_type="pairwise",
    raters_per_item=2,
    double_annotation_share=0.5,
    allocation=None,
    **fields,
):
    """A live project made and filled through the API; returns (project id, lead's client)."""
    client = client_for(lead)
    payload = {
        "name": "allocation study",
        "task_type": task_type,
        "criteria": [{"name": "overall"}],
        "raters_per_item": raters_per_item,
        "double_annotation_share": double_annotation_share,
        **fields,
    }
    if allocation is not None:
        payload["allocation"] = allocation
    response = client.post("/api/v1/projects/", payload, format="json")
    assert response.status_code == 201, response.content
    pk = response.json()["id"]
    lines = "\n".join(
        json.dumps(
            {
                "external_id": f"doc{i}",
                "input": f"source {i}",
                "outputs": [{"system": "bart", "text": f"bart {i}"}, {"system": "t5", "text": f"t5 {i}"}],
            }
        )
        for i in range(n_items)
    )
    response = client.post(f"/api/v1/projects/{pk}/items/import/", data=lines, content_type="application/x-ndjson")
    assert response.status_code in (200, 201), response.content
    return pk, client


def rater_join(lead_client, pk: int, username: str):
    user = UserFactory(username=username)
    response = lead_client.post(
        f"/api/v1/projects/{pk}/members/", {"username": username, "role": "rater"}, format="json"
    )
    assert response.status_code == 201, response.content
    return user


def rate_one(client, pk: int) -> bool:
    """One screen (next + judgment) through the API; False when the rater is told nothing is left (204)."""
    response = client.post(f"/api/v1/projects/{pk}/next/")
    if response.status_code == 204:
        return False
    assert response.status_code == 200, response.content
    body = response.json()
    values = [{"criterion": c["name"], "value": "A"} for c in body["criteria"]]
    answer = client.post(f"/api/v1/assignments/{body['assignment_id']}/judgment/", {"values": values}, format="json")
    assert answer.status_code == 201, answer.content
    return True


def rate_all(client, pk: int, limit: int = 10_000) -> int:
    n = 0
    while n < limit and rate_one(client, pk):
        n += 1
    return n


def judged_items(pk: int) -> dict[int, set[int]]:
    """Per rater id, the work items they judged."""
    found: dict[int, set[int]] = {}
    for rater, item in Assignment.objects.filter(project_id=pk, status=Assignment.Status.DONE).values_list(
        "rater_id", "item_id"
    ):
        found.setdefault(rater, set()).add(item)
    return found


def shared_units(pk: int) -> Counter:
    """Per pair of rater ids (lower first), the items both judged."""
    judged = judged_items(pk)
    return Counter({(a, b): len(judged[a] & judged[b]) for a, b in combinations(sorted(judged), 2)})


def over_target(pk: int) -> list[int]:
    """Items with more live assignments than the raters they want."""
    live = Counter(
        Assignment.objects.filter(project_id=pk)
        .exclude(status=Assignment.Status.EXPIRED)
        .values_list("item_id", flat=True)
    )
    targets = dict(Item.objects.filter(project_id=pk).values_list("id", "n_target"))
    return [item for item, n in live.items() if n > targets[item]]
