"""Adaptive allocation through the HTTP API: settings, the draw of each screen's pair with the cached
probabilities, the probability recorded on every judgment, and its use by import, export and results."""

import json
import random
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from annotation.models import AdaptiveAllocationState, Assignment, Judgment, Membership
from evaluation.export.tables import judgments_table
from evaluation.selectors.export import export_scope, judgment_batches
from evaluation.services.adaptive_refresh import adaptive_probabilities_refresh, adaptive_refresh_stale
from tests.annotation.factories import ItemFactory, MembershipFactory, UserFactory
from tests.annotation.rating import add_raters, rating_project
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

SYSTEMS = ["alpha", "beta", "gamma", "delta"]
PAIRS = list(combinations(sorted(SYSTEMS), 2))


def adaptive_url(project):
    return f"/api/v1/projects/{project.pk}/allocation/adaptive/"


def pairwise_study(*, per_pair, n_target, n_raters, **fields):
    project = rating_project(task_type="pairwise", n_items=0, criteria=["overall"], **fields)
    for a, b in combinations(SYSTEMS, 2):
        for _ in range(per_pair):
            ItemFactory(project=project, n_target=n_target, systems=[a, b])
    lead = UserFactory(username=f"lead{project.pk}")
    MembershipFactory(project=project, user=lead, role="lead")
    return project, client_for(lead), [client_for(u) for u in add_raters(project, n_raters)]


def screen_pair(assignment_id):
    assignment = Assignment.objects.select_related("item").get(pk=assignment_id)
    systems = sorted(assignment.item.outputs.values_list("system", flat=True))
    return tuple(systems), assignment


def test_lead_sets_adaptive_allocation_and_bad_settings_are_400():
    project, lead, _ = pairwise_study(per_pair=1, n_target=1, n_raters=0)

    response = lead.patch(
        adaptive_url(project),
        {"adaptive": {"target": "top_k", "top_k": 2}, "min_judgments_per_system": 30},
        format="json",
    )

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["adaptive"] == {
        "target": "top_k",
        "top_k": 2,
        "cold_start": None,
        "floor": 0.3,
        "refresh_every": 20,
        "weighting": "inverse_probability",
    }
    assert body["min_judgments_per_system"] == 30 and body["probabilities"] == []
    for payload, fragment in [
        ({"adaptive": {"target": "best"}}, "target"),
        ({"adaptive": {"target": "top_k"}}, "top_k"),
        ({"adaptive": {"floor": 0}}, "floor"),
        ({"adaptive": {"cold_start": -1}}, "cold_start"),
        ({"adaptive": {"weighting": "stabilised"}}, "weighting"),
        ({"min_judgments_per_system": -1}, "min_judgments_per_system"),
    ]:
        bad = lead.patch(adaptive_url(project), payload, format="json")
        assert bad.status_code == 400 and fragment in json.dumps(bad.json()), (payload, bad.json())
    # unweighted, the floor bounds no weight: a smaller one by default
    unweighted = lead.patch(adaptive_url(project), {"adaptive": {"weighting": "none"}}, format="json").json()
    assert unweighted["adaptive"]["weighting"] == "none" and unweighted["adaptive"]["floor"] == 0.1
    # a design of places does not combine with it, either way round
    conflict = lead.patch(f"/api/v1/projects/{project.pk}/allocation/", {"planned_raters": 2}, format="json")
    assert conflict.status_code == 400 and "adaptive" in json.dumps(conflict.json())
    off = lead.patch(adaptive_url(project), {"adaptive": None}, format="json")
    assert off.status_code == 200 and off.json()["adaptive"] is None


def test_a_rating_project_takes_no_adaptive_allocation():
    project = rating_project(n_items=1)
    lead = UserFactory(username="lead-likert")
    MembershipFactory(project=project, user=lead, role="lead")

    response = client_for(lead).patch(adaptive_url(project), {"adaptive": {}}, format="json")

    assert response.status_code == 400 and "adaptive" in json.dumps(response.json())


def test_the_draw_follows_the_cached_probabilities_and_records_them():
    project, lead, raters = pairwise_study(per_pair=40, n_target=6, n_raters=6)
    assert (
        lead.patch(adaptive_url(project), {"adaptive": {"target": "top_k", "top_k": 1}}, format="json").status_code
        == 200
    )
    wanted = dict(zip(PAIRS, [0.5, 0.2, 0.1, 0.1, 0.05, 0.05], strict=True))
    AdaptiveAllocationState.objects.create(project=project, probabilities=[[a, b, p] for (a, b), p in wanted.items()])

    drawn = []
    for client in raters:
        for _ in range(40):
            screen = client.post(f"/api/v1/projects/{project.pk}/next/").json()
            pair, assignment = screen_pair(screen["assignment_id"])
            drawn.append(pair)
            # every pair is open to the rater all along, so the probability is the cached one
            assert assignment.sampling_probability == pytest.approx(wanted[pair])
            answer = client.post(
                f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
                {"values": [{"criterion": "overall", "value": "A"}]},
                format="json",
            )
            assert answer.status_code == 201
            # the screen gives nothing of the draw away
            assert "probability" not in json.dumps(screen) and "probability" not in json.dumps(answer.json())

    counts = np.array([drawn.count(pair) for pair in PAIRS])
    assert stats.chisquare(counts, np.array(list(wanted.values())) * len(drawn)).pvalue > 0.01
    recorded = {
        (tuple(sorted(j.item.outputs.values_list("system", flat=True))), j.sampling_probability)
        for j in Judgment.objects.select_related("item")
    }
    assert recorded == {(pair, wanted[pair]) for pair in set(drawn)}


def test_the_draw_is_renormalised_over_the_pairs_open_to_the_rater():
    project, lead, (client,) = pairwise_study(per_pair=1, n_target=1, n_raters=1)
    lead.patch(adaptive_url(project), {"adaptive": {"target": "ranking"}}, format="json")
    AdaptiveAllocationState.objects.create(
        project=project,
        probabilities=[[a, b, p] for (a, b), p in zip(PAIRS, [0.4, 0.3, 0.1, 0.1, 0.05, 0.05], strict=True)],
    )
    seen = {}
    while (screen := client.post(f"/api/v1/projects/{project.pk}/next/")).status_code == 200:
        pair, assignment = screen_pair(screen.json()["assignment_id"])
        seen[pair] = assignment.sampling_probability
        client.post(
            f"/api/v1/assignments/{assignment.pk}/judgment/",
            {"values": [{"criterion": "overall", "value": "tie"}]},
            format="json",
        )
    # one item per pair: the last screen's pair was the only one left, drawn with probability 1
    assert len(seen) == 6 and sorted(seen.values())[-1] == 1.0
    assert all(0 < p <= 1 for p in seen.values())


def test_a_simulated_study_adapts_and_its_results_are_weighted():
    # systems of known strength; the probabilities are refreshed by the debounced sweep, as the beat runs it
    # alpha clear of beta: the draw is not seeded (SystemRandom), and 1.5 against 1.2 swapped them now and then
    strength = {"alpha": 2.0, "beta": 1.2, "gamma": -0.5, "delta": -1.5}
    project, lead, raters = pairwise_study(per_pair=40, n_target=6, n_raters=6)
    lead.patch(
        adaptive_url(project),
        {"adaptive": {"target": "top_k", "top_k": 1, "cold_start": 30, "refresh_every": 20}},
        format="json",
    )
    rng = random.Random(5)
    for round_ in range(40):
        if round_ % 4 == 0:
            adaptive_refresh_stale()
        for client in raters:
            screen = client.post(f"/api/v1/projects/{project.pk}/next/").json()
            assignment = Assignment.objects.get(pk=screen["assignment_id"])
            left, right = (assignment.item.outputs.get(position=p).system for p in assignment.shown_order)
            p_left = 1 / (1 + np.exp(strength[right] - strength[left]))
            client.post(
                f"/api/v1/assignments/{assignment.pk}/judgment/",
                {"values": [{"criterion": "overall", "value": "A" if rng.random() < p_left else "B"}]},
                format="json",
            )
    state = AdaptiveAllocationState.objects.get(project=project)
    probabilities = {(a, b): p for a, b, p in state.probabilities}
    # the pair that decides the top place is wanted most; the floor keeps every pair drawn
    assert max(probabilities, key=probabilities.get) == ("alpha", "beta")
    assert min(probabilities.values()) >= 0.3 / 6 - 1e-9
    assert Judgment.objects.filter(sampling_probability__isnull=True).count() == 0
    late = Judgment.objects.filter(id__gt=state.judgments_through - 20)
    assert {j.sampling_probability for j in late} != {1 / 6}  # adapted: not the uniform cold start any more

    url = f"/api/v1/projects/{project.pk}/results/?n_resamples=0&test_resamples=0"
    (criterion,) = lead.get(url).json()["criteria"]
    assert criterion["weighting"] == "inverse_probability" and criterion["sampling_probabilities"]
    assert criterion["systems"][0]["system"] == "alpha"
    assert all(s["weighted_win_rate"] is not None for s in criterion["systems"])

    # the lead's setting, or the request, says which fit is reported: unweighted, the strengths differ
    lead.patch(adaptive_url(project), {"adaptive": {"target": "top_k", "top_k": 1, "weighting": "none"}}, format="json")
    (unweighted,) = lead.get(url).json()["criteria"]
    assert unweighted["weighting"] == "none" and unweighted["sampling_probabilities"]
    assert "unweighted" in unweighted["bradley_terry"]["scale"]
    strengths = {s["system"]: s["strength"] for s in criterion["systems"]}
    assert {s["system"]: s["strength"] for s in unweighted["systems"]} != strengths
    (asked,) = lead.get(url + "&weighting=inverse_probability").json()["criteria"]
    assert {s["system"]: s["strength"] for s in asked["systems"]} == strengths
    bad = lead.get(url + "&weighting=square")
    assert bad.status_code == 400 and "weighting" in json.dumps(bad.json())


def test_an_excluded_raters_judgments_do_not_steer_the_allocation():
    # a careless rater always picks the underdog; once the lead excludes them, the allocation is fitted as if
    # their judgments had never been made, as the results are
    strength = {"alpha": 2.0, "beta": 1.2, "gamma": -0.5, "delta": -1.5}
    project, lead, raters = pairwise_study(per_pair=20, n_target=4, n_raters=4)
    lead.patch(adaptive_url(project), {"adaptive": {"target": "top_k", "top_k": 1, "cold_start": 10}}, format="json")
    careless = Membership.objects.get(project=project, user__username=f"rater{project.pk}-0").user
    rng = random.Random(3)
    for _ in range(12):
        for client in raters:
            screen = client.post(f"/api/v1/projects/{project.pk}/next/").json()
            assignment = Assignment.objects.get(pk=screen["assignment_id"])
            left, right = (assignment.item.outputs.get(position=p).system for p in assignment.shown_order)
            if assignment.rater == careless:
                value = "A" if strength[left] < strength[right] else "B"
            else:
                value = "A" if rng.random() < 1 / (1 + np.exp(strength[right] - strength[left])) else "B"
            client.post(
                f"/api/v1/assignments/{assignment.pk}/judgment/",
                {"values": [{"criterion": "overall", "value": value}]},
                format="json",
            )
    project.refresh_from_db()
    with_careless = adaptive_probabilities_refresh(project=project).probabilities
    response = lead.post(
        f"/api/v1/projects/{project.pk}/qc/actions/",
        {"rater": careless.username, "action": "exclude", "reason": "picks the weaker side"},
        format="json",
    )
    assert response.status_code == 201
    excluded = adaptive_probabilities_refresh(project=project)
    assert excluded.n_judgments == Judgment.objects.filter(project=project).exclude(rater=careless).count()
    assert excluded.probabilities != with_careless
    Judgment.objects.filter(project=project, rater=careless).delete()
    assert adaptive_probabilities_refresh(project=project).probabilities == excluded.probabilities


def test_import_takes_and_export_carries_the_sampling_probability():
    project, lead, _ = pairwise_study(per_pair=1, n_target=1, n_raters=0)
    item = project.items.order_by("id").first()
    systems = list(item.outputs.order_by("position").values_list("system", flat=True))
    line = {"item": item.external_id, "rater": "w1", "criterion": "overall", "value": systems[0]}
    url = f"/api/v1/projects/{project.pk}/judgments/import/"

    for bad in (0, 1.5, "half", True):
        response = lead.post(url, json.dumps(line | {"sampling_probability": bad}), content_type="application/x-ndjson")
        assert response.status_code == 400 and "sampling_probability" in json.dumps(response.json())
    assert not Judgment.objects.exists()
    response = lead.post(url, json.dumps(line | {"sampling_probability": 0.25}), content_type="application/x-ndjson")
    assert response.status_code in (200, 201), response.json()
    assert Judgment.objects.get().sampling_probability == 0.25

    scope = export_scope(project, include_usernames=False, include_excluded=False, by_subgroup=False)
    (row,) = [row for _, batch in judgment_batches(scope) for row in batch]
    columns = [c.name for c in judgments_table("pairwise").columns]
    assert row[columns.index("sampling_probability")] == 0.25


def test_control_screens_draw_too_and_record_nothing():
    # gold checks among the work: every screen runs the draw, only work screens keep a probability, and the
    # screens answer the same fields whatever they are
    project, lead, (client,) = pairwise_study(per_pair=4, n_target=1, n_raters=1, gold_rate=0.3)
    for a, b in PAIRS[:3]:
        ItemFactory(project=project, n_target=0, gold={"overall": a}, systems=[a, b])
    lead.patch(adaptive_url(project), {"adaptive": {"target": "ranking"}}, format="json")
    keys = set()
    while (screen := client.post(f"/api/v1/projects/{project.pk}/next/")).status_code == 200:
        body = screen.json()
        keys.add((frozenset(body), frozenset(body["item"])))
        client.post(
            f"/api/v1/assignments/{body['assignment_id']}/judgment/",
            {"values": [{"criterion": "overall", "value": "A"}]},
            format="json",
        )
    served = Assignment.objects.filter(project=project)
    assert served.filter(served_as="gold").exists() and len(keys) == 1
    assert not served.exclude(served_as="work").filter(sampling_probability__isnull=False).exists()
    assert not served.filter(served_as="work", sampling_probability__isnull=True).exists()
