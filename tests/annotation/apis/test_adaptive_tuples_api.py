"""Adaptive allocation of best–worst tuples through the HTTP API: the settings, each screen's tuple drawn with the
cached probabilities and its probability recorded on every judgment of the screen, the refresh fitting them, and
the results weighting MaxDiff by them; a rater's screen looks as it does without adaptive allocation."""

import io
import json

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from annotation.models import AdaptiveAllocationState, Assignment, Judgment, Membership
from annotation.services.item_import import item_import
from annotation.services.project import project_create
from annotation.task_types import REGISTRY
from evaluation.services.adaptive_refresh import adaptive_refresh_stale
from evaluation.stats import ipw_maxdiff
from tests.annotation.factories import UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

# Outputs of known strength; a rater's utility adds standard Gumbel noise (the MaxDiff model's random utility).
STRENGTH = {f"text{i}": s for i, s in enumerate(np.linspace(-1.5, 1.5, 8))}
BWS = next(slug for slug, t in REGISTRY.items() if t.results.best_worst)


def adaptive_url(project):
    return f"/api/v1/projects/{project.pk}/allocation/adaptive/"


def bws_study(*, n_raters, adaptive=None, name="tuples"):
    """8 outputs to scale, 24 tuples of 3 drawn from them, each for 3 raters; the lead's and raters' clients."""
    lead = UserFactory(username=f"lead-{name}")
    config = {"seed": 4, "k": 3, "tuples_per_output": 3} | ({"adaptive": adaptive} if adaptive else {})
    project = project_create(
        created_by=lead,
        name=name,
        task_type=BWS,
        criteria=[{"name": "overall"}],
        raters_per_item=3,
        double_annotation_share=1.0,
        task_config=config,
    )
    lines = [
        {"external_id": s, "input": "Which text is best?", "outputs": [{"system": s, "text": f"the text {s}"}]}
        for s in STRENGTH
    ]
    assert item_import(project=project, stream=io.BytesIO("\n".join(map(json.dumps, lines)).encode())) == 24
    raters = [UserFactory(username=f"{name}-rater{i}") for i in range(n_raters)]
    for rater in raters:
        Membership.objects.create(project=project, user=rater, role=Membership.Role.RATER)
    return project, client_for(lead), [client_for(r) for r in raters]


def answer(client, screen, rng=None):
    """Picks best and worst by the outputs' strengths plus Gumbel noise; the screen's outputs carry no system, so
    the test reads them from the assignment. Without ``rng`` the noise is drawn per tuple (seeded by its systems),
    so the answers do not depend on the order the screens were served in."""
    assignment = Assignment.objects.get(pk=screen["assignment_id"])
    by_position = dict(assignment.item.outputs.values_list("position", "system"))
    if rng is None:
        systems = sorted(by_position.values())
        draws = np.random.default_rng([ord(c) for c in "".join(systems)]).gumbel(size=len(systems))
        noise = dict(zip(systems, draws, strict=True))
        utility = [STRENGTH[by_position[p]] + noise[by_position[p]] for p in assignment.shown_order]
    else:
        utility = [STRENGTH[by_position[p]] + rng.gumbel() for p in assignment.shown_order]
    return client.post(
        f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
        {
            "values": [
                {"criterion": "overall", "position": int(np.argmax(utility)), "value": "best"},
                {"criterion": "overall", "position": int(np.argmin(utility)), "value": "worst"},
            ]
        },
        format="json",
    )


def shape(value):
    """The keys of a JSON document, recursively, without its values."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(v) for v in value[:1]]
    return type(value).__name__


def test_lead_sets_adaptive_allocation_of_tuples_and_bad_settings_are_400():
    project, lead, _ = bws_study(n_raters=0)

    response = lead.patch(adaptive_url(project), {"adaptive": {"target": "top_k", "top_k": 2}}, format="json")

    assert response.status_code == 200, response.json()
    assert response.json()["adaptive"] == {
        "target": "top_k",
        "top_k": 2,
        "cold_start": None,
        "floor": 0.3,
        "refresh_every": 20,
        "weighting": "inverse_probability",
    }
    project.refresh_from_db()
    # the design's settings stay as they were
    assert {k: project.task_config[k] for k in ("k", "tuples_per_output", "seed")} == {
        "k": 3,
        "tuples_per_output": 3.0,
        "seed": 4,
    }
    for payload, fragment in [
        ({"adaptive": {"target": "best"}}, "task_config.adaptive.target"),
        ({"adaptive": {"floor": 1.5}}, "task_config.adaptive.floor"),
        ({"adaptive": {"weighting": "stabilised"}}, "task_config.adaptive.weighting"),
        ({"min_judgments_per_system": 3}, "min_judgments_per_system"),
    ]:
        bad = lead.patch(adaptive_url(project), payload, format="json")
        assert bad.status_code == 400 and fragment in json.dumps(bad.json()), (payload, bad.json())


def test_adaptive_tuples_are_drawn_recorded_refreshed_and_weighted_in_the_results():
    # Given an adaptive best–worst project whose cached probabilities favour the tuples holding text7
    project, lead, raters = bws_study(n_raters=3, adaptive={"target": "top_k", "top_k": 1, "refresh_every": 1000})
    plain_project, plain_lead, plain_raters = bws_study(n_raters=1, name="plain")
    tuples = sorted({tuple(sorted(item.outputs.values_list("system", flat=True))) for item in project.items.all()})
    cached = np.array([4.0 if "text7" in t else 1.0 for t in tuples])
    cached /= cached.sum()
    AdaptiveAllocationState.objects.create(
        project=project, probabilities=[[*t, float(p)] for t, p in zip(tuples, cached, strict=True)]
    )
    rng = np.random.default_rng(2)

    # when the raters judge every screen they are served
    first = raters[0].post(f"/api/v1/projects/{project.pk}/next/").json()
    plain = plain_raters[0].post(f"/api/v1/projects/{plain_project.pk}/next/").json()
    # then a screen is shaped as a non-adaptive one and tells nothing of the draw
    assert shape(first) == shape(plain)
    assert "probab" not in json.dumps(first)
    served = Assignment.objects.get(pk=first["assignment_id"])
    systems = tuple(sorted(served.item.outputs.values_list("system", flat=True)))
    # everything is open on the first screen: the probability is the cached one
    assert served.sampling_probability == pytest.approx(cached[tuples.index(systems)])
    reply = answer(raters[0], first, rng)
    assert reply.status_code == 201 and "probab" not in json.dumps(reply.json())
    for client in raters:
        while (screen := client.post(f"/api/v1/projects/{project.pk}/next/")).status_code == 200:
            assert answer(client, screen.json(), rng).status_code == 201

    # and every judgment of a screen records its tuple's probability
    judgments = list(
        Judgment.objects.filter(project=project).values_list(
            "assignment_id", "output__system", "value", "sampling_probability"
        )
    )
    assert len(judgments) == 24 * 3 * 3
    screens = {}
    for assignment, system, value, probability in judgments:
        screens.setdefault(assignment, []).append((system, value, probability))
    assert all(len({p for _, _, p in rows}) == 1 and 0 < rows[0][2] <= 1 for rows in screens.values())

    # the refresh fits the cached probabilities, one per tuple, with the floor kept
    adaptive_refresh_stale()
    state = AdaptiveAllocationState.objects.get(project=project)
    assert sorted(tuple(row[:-1]) for row in state.probabilities) == tuples
    refreshed = np.array([row[-1] for row in state.probabilities])
    assert refreshed.sum() == pytest.approx(1.0) and refreshed.min() >= 0.3 / len(tuples) - 1e-12
    listed = lead.get(adaptive_url(project)).json()["probabilities"]
    assert listed[0]["systems"] == list(state.probabilities[0][:-1]) and listed[0]["system_a"] is None

    # and the results weight MaxDiff by the recorded probabilities, saying so
    body = lead.get(f"/api/v1/projects/{project.pk}/results/").json()
    maxdiff = body["criteria"][0]["best_worst"]["maxdiff"]
    assert maxdiff["weighting"] == "inverse_probability" and "sandwich" in maxdiff["scale"]
    rows = list(screens.values())
    expected = ipw_maxdiff(
        [[s for s, _, _ in r] for r in rows],
        [next(s for s, v, _ in r if v == 1) for r in rows],
        [next(s for s, v, _ in r if v == -1) for r in rows],
        [r[0][2] for r in rows],
    )
    for system, strength in zip(expected.items, expected.strengths, strict=True):
        assert maxdiff["systems"][system]["strength"] == pytest.approx(strength, abs=1e-9)
    page = Client()
    page.force_login(get_user_model().objects.get(username="lead-tuples"))
    html = page.get(f"/projects/{project.pk}/results/").content.decode()
    assert 'data-testid="weighting-note"' in html and "inverse of the probability its tuple was drawn with" in html
    unweighted = lead.get(f"/api/v1/projects/{project.pk}/results/?weighting=none").json()
    assert unweighted["criteria"][0]["best_worst"]["maxdiff"]["weighting"] == "none"
    # a project without adaptive allocation keeps its bootstrap MaxDiff
    answer(plain_raters[0], plain)
    while (screen := plain_raters[0].post(f"/api/v1/projects/{plain_project.pk}/next/")).status_code == 200:
        answer(plain_raters[0], screen.json())
    assert not Judgment.objects.filter(project=plain_project, sampling_probability__isnull=False).exists()
    plain_body = plain_lead.get(f"/api/v1/projects/{plain_project.pk}/results/?n_resamples=20").json()
    plain_maxdiff = plain_body["criteria"][0]["best_worst"]["maxdiff"]
    assert "weighting" not in plain_maxdiff and plain_maxdiff["n_resamples"] == 20
