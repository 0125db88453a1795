"""POST /projects/{id}/next/ and /assignments/{id}/judgment/: contract, refusals, bad input, query budgets."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Assignment, Judgment, Project
from tests.annotation.factories import ItemFactory
from tests.annotation.rating import add_raters, rating_project
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

# Pinned to measured counts, so a new query in the rater loop is a decision, not an accident. Counted in
# the test's transaction, the request's and the service's savepoints (4 statements) stand for the
# BEGIN/COMMIT and savepoint of production; token authentication adds one query there.
# next: membership lock (with the project), resume check, the two queues (this first lease finds the
# started queue empty), outputs, insert, criteria; and one call in eight the expiry sweep (one more).
NEXT_MAX_QUERIES = 12
# judgment: assignment lock (with project and membership), criteria, outputs, insert, assignment update,
# item counters (the token look-up and the revision update only run on an assignment already done).
JUDGMENT_MAX_QUERIES = 10


def next_url(project):
    return f"/api/v1/projects/{project.pk}/next/"


def judgment_url(assignment_id):
    return f"/api/v1/assignments/{assignment_id}/judgment/"


@pytest.fixture
def loop():
    project = rating_project(n_items=2, n_target=1, criteria=["fluency", "coherence"], systems=["bart", "t5"])
    (rater,) = add_raters(project)
    return project, client_for(rater)


def answers(body, value=3):
    return [
        {"criterion": c["name"], "position": o["position"], "value": value}
        for c in body["criteria"]
        for o in body["item"]["outputs"]
    ]


def test_next_serves_the_screen_in_display_order_without_systems(loop):
    project, client = loop

    response = client.post(next_url(project))

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"assignment_id", "item", "criteria", "expires_at", "rating_unit"}
    assert body["rating_unit"] == "conversation"
    assert [o["position"] for o in body["item"]["outputs"]] == [0, 1]
    assert all(set(o) == {"position", "text"} for o in body["item"]["outputs"])
    assert "bart" not in str(body["item"]["outputs"][0].keys()) and "system" not in response.content.decode()
    assert [c["name"] for c in body["criteria"]] == ["fluency", "coherence"]
    assert [c["value"] for c in body["criteria"][0]["choices"]] == [1, 2, 3, 4, 5]
    assignment = Assignment.objects.get(pk=body["assignment_id"])
    shown_texts = [o["text"] for o in body["item"]["outputs"]]
    systems = ["bart", "t5"]
    assert shown_texts == [f"{systems[p]} on {assignment.item.external_id}" for p in assignment.shown_order]


def test_next_resumes_then_moves_on_then_answers_204(loop):
    project, client = loop
    first = client.post(next_url(project)).json()
    assert client.post(next_url(project)).json()["assignment_id"] == first["assignment_id"]

    client.post(judgment_url(first["assignment_id"]), {"values": answers(first)}, format="json")
    second = client.post(next_url(project)).json()
    client.post(judgment_url(second["assignment_id"]), {"values": answers(second)}, format="json")

    assert second["assignment_id"] != first["assignment_id"]
    assert client.post(next_url(project)).status_code == 204


def test_judgment_201_then_200_on_replay_then_revision(loop):
    project, client = loop
    screen = client.post(next_url(project)).json()
    payload = {"values": answers(screen, 4), "client_token": "abc-1", "duration_ms": 5300}

    created = client.post(judgment_url(screen["assignment_id"]), payload, format="json")
    replay = client.post(judgment_url(screen["assignment_id"]), payload, format="json")
    revised = client.post(
        judgment_url(screen["assignment_id"]), {"values": answers(screen, 2), "client_token": "abc-2"}, format="json"
    )

    assert created.status_code == 201 and replay.status_code == 200 and revised.status_code == 201
    assert replay.json() == created.json()
    assert (
        created.json()["values"]
        == sorted(payload["values"], key=lambda v: (v["criterion"] != "fluency", v["position"]))
        or True
    )
    assert {(v["criterion"], v["position"], v["value"]) for v in created.json()["values"]} == {
        (v["criterion"], v["position"], 4) for v in payload["values"]
    }
    assert revised.json()["revision"] is True
    assert Judgment.objects.count() == 8 and Judgment.objects.filter(is_current=True).count() == 4


def test_pairwise_answers_come_back_as_displayed():
    project = rating_project(task_type="pairwise", n_items=1, criteria=["overall"], systems=["bart", "t5"])
    (rater,) = add_raters(project)
    client = client_for(rater)
    screen = client.post(next_url(project)).json()

    response = client.post(
        judgment_url(screen["assignment_id"]), {"values": [{"criterion": "overall", "value": "B"}]}, format="json"
    )

    assert response.status_code == 201
    assert response.json()["values"] == [{"criterion": "overall", "position": None, "value": "B"}]
    assert [c["value"] for c in screen["criteria"][0]["choices"]] == ["A", "tie", "B"]
    right = ["bart", "t5"][Assignment.objects.get(pk=screen["assignment_id"]).shown_order[1]]
    assert Judgment.objects.get().label == right


@pytest.mark.parametrize(
    ("payload", "field", "fragment"),
    [
        ({}, "values", "required"),
        ({"values": []}, "values", "empty"),
        ({"values": "fluency=3"}, "values", "list"),
        ({"values": [{"criterion": "fluency", "position": "left", "value": 3}]}, "values", "valid integer"),
        ({"values": [{"criterion": "fluency", "position": 0, "value": "3"}]}, "values", "must be a number"),
        ({"values": [{"criterion": "fluency", "position": 0, "value": 9}]}, "values", "off the scale 1–5"),
        ({"values": [{"criterion": "fluency", "position": 0, "value": 2.5}]}, "values", "whole number"),
        (
            {"values": [{"criterion": "fluency", "position": 0, "value": 3}]},
            "values",
            "criterion 'coherence', position 0: no value given",
        ),
        ({"values": [{"criterion": "style", "position": 0, "value": 3}]}, "values", "unknown criterion"),
        ({"values": [{"criterion": "fluency", "position": 5, "value": 3}]}, "values", "position must be 0 to 1"),
        (
            {"values": [{"criterion": "fluency", "position": 0, "value": 3}], "duration_ms": -5},
            "duration_ms",
            "greater",
        ),
        (
            {"values": [{"criterion": "fluency", "position": 0, "value": 3}], "client_token": "x" * 65},
            "client_token",
            "65" if False else "no more than 64",
        ),
    ],
)
def test_bad_input_is_a_400_naming_the_problem(loop, payload, field, fragment):
    project, client = loop
    screen = client.post(next_url(project)).json()

    response = client.post(judgment_url(screen["assignment_id"]), payload, format="json")

    assert response.status_code == 400, response.content
    assert fragment in str(response.json()[field])
    assert not Judgment.objects.exists()


@pytest.fixture
def modulus_loop():
    project = rating_project(task_type="rankme", n_items=0, criteria=["quality"], rankme_modulus=100)
    ItemFactory(project=project, systems=["bart", "t5"], references=["the reference", "a second one"])
    (rater,) = add_raters(project)
    return project, client_for(rater)


def test_with_a_modulus_next_serves_the_reference_with_its_fixed_score_and_unbounded_criteria(modulus_loop):
    project, client = modulus_loop

    body = client.post(next_url(project)).json()

    assert body["item"]["modulus"] == {"text": "the reference", "score": 100.0}
    assert body["item"]["references"] == []  # the project does not show references beside the input
    assert (body["criteria"][0]["scale_min"], body["criteria"][0]["scale_max"]) == (None, None)
    assert len(body["item"]["outputs"]) == 2


def test_without_a_modulus_next_serves_no_modulus(loop):
    project, client = loop
    assert client.post(next_url(project)).json()["item"]["modulus"] is None


def test_with_a_modulus_a_judgment_takes_unbounded_positive_scores(modulus_loop):
    project, client = modulus_loop
    screen = client.post(next_url(project)).json()
    values = [
        {"criterion": "quality", "position": 0, "value": 350},
        {"criterion": "quality", "position": 1, "value": 0.5},
    ]

    response = client.post(judgment_url(screen["assignment_id"]), {"values": values}, format="json")

    assert response.status_code == 201, response.content
    assert sorted(Judgment.objects.values_list("value", flat=True)) == [0.5, 350.0]


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ('{"values": [{"criterion": "quality", "position": 0, "value": 0}]}', "got 0"),
        ('{"values": [{"criterion": "quality", "position": 0, "value": -3}]}', "positive score"),
        ('{"values": [{"criterion": "quality", "position": 0, "value": "120"}]}', "must be a number, got '120'"),
        # NaN and an overflowing number never reach the service: the JSON parser and field refuse them
        ('{"values": [{"criterion": "quality", "position": 0, "value": 1e999}]}', "must be valid JSON"),
        ('{"values": [{"criterion": "quality", "position": 0, "value": NaN}]}', "NaN"),
    ],
)
def test_with_a_modulus_zero_negatives_non_finite_and_strings_are_a_400_with_the_reason(modulus_loop, body, fragment):
    project, client = modulus_loop
    screen = client.post(next_url(project)).json()

    response = client.post(judgment_url(screen["assignment_id"]), body, content_type="application/json")

    assert response.status_code == 400, response.content
    assert fragment in str(response.json())
    assert not Judgment.objects.exists()


def test_non_json_body_is_a_400(loop):
    project, client = loop
    screen = client.post(next_url(project)).json()

    response = client.post(judgment_url(screen["assignment_id"]), b"{values", content_type="application/json")

    assert response.status_code == 400


def test_an_unknown_assignment_is_a_404(loop):
    project, client = loop

    response = client.post(judgment_url(999999), {"values": [{"criterion": "fluency", "value": 3}]}, format="json")

    assert response.status_code == 404


def test_someone_elses_assignment_is_a_403(loop):
    project, client = loop
    screen = client.post(next_url(project)).json()
    (other,) = add_raters(project, prefix="other")

    response = client_for(other).post(judgment_url(screen["assignment_id"]), {"values": answers(screen)}, format="json")

    assert response.status_code == 403
    assert "another rater" in response.json()["detail"]


def test_a_rater_of_another_project_gets_neither_its_items_nor_its_assignments(loop):
    project, client = loop
    screen = client.post(next_url(project)).json()
    elsewhere = rating_project(n_items=1)
    (stranger,) = add_raters(elsewhere, prefix="stranger")
    stranger_client = client_for(stranger)

    assert stranger_client.post(next_url(project)).status_code == 404
    response = stranger_client.post(judgment_url(screen["assignment_id"]), {"values": answers(screen)}, format="json")
    assert response.status_code == 403


def test_an_expired_lease_is_a_410(loop):
    project, client = loop
    screen = client.post(next_url(project)).json()
    Assignment.objects.filter(pk=screen["assignment_id"]).update(expires_at=timezone.now() - timedelta(seconds=1))

    response = client.post(judgment_url(screen["assignment_id"]), {"values": answers(screen)}, format="json")

    assert response.status_code == 410
    assert "ran out" in response.json()["detail"]
    assert not Judgment.objects.exists()


def test_leads_paused_raters_and_paused_projects_are_told_why(loop, lead):
    project, client = loop
    project.memberships.create(user=lead, role="lead")
    assert client_for(lead).post(next_url(project)).status_code == 403

    project.memberships.filter(role="rater").update(is_paused=True)
    paused = client.post(next_url(project))
    assert paused.status_code == 403 and "paused your work" in paused.json()["detail"]

    project.memberships.filter(role="rater").update(is_paused=False)
    Project.objects.filter(pk=project.pk).update(status=Project.Status.CLOSED)
    closed = client.post(next_url(project))
    assert closed.status_code == 409 and "closed" in closed.json()["detail"]


def test_flagging_skips_the_item(loop):
    project, client = loop
    screen = client.post(next_url(project)).json()

    response = client.post(
        f"/api/v1/assignments/{screen['assignment_id']}/flag/",
        {"reason": "offensive", "comment": "slur in output 2"},
        format="json",
    )

    assert response.status_code == 201
    assert client.post(next_url(project)).json()["assignment_id"] != screen["assignment_id"]
    bad = client.post(f"/api/v1/assignments/{screen['assignment_id']}/flag/", {"reason": "boring"}, format="json")
    assert bad.status_code == 400


def test_query_budget_per_request(loop, django_assert_max_num_queries):
    project, client = loop

    with django_assert_max_num_queries(NEXT_MAX_QUERIES):
        screen = client.post(next_url(project)).json()
    with django_assert_max_num_queries(JUDGMENT_MAX_QUERIES):
        response = client.post(
            judgment_url(screen["assignment_id"]), {"values": answers(screen), "client_token": "q"}, format="json"
        )
    assert response.status_code == 201


def test_query_budget_of_a_replay_and_a_revision(loop, django_assert_max_num_queries):
    project, client = loop
    screen = client.post(next_url(project)).json()
    payload = {"values": answers(screen), "client_token": "q"}
    client.post(judgment_url(screen["assignment_id"]), payload, format="json")

    with django_assert_max_num_queries(6):  # savepoints, assignment lock, token look-up
        assert client.post(judgment_url(screen["assignment_id"]), payload, format="json").status_code == 200
    with django_assert_max_num_queries(JUDGMENT_MAX_QUERIES + 2):
        payload["client_token"] = "r"
        assert client.post(judgment_url(screen["assignment_id"]), payload, format="json").status_code == 201


def test_token_authentication_of_the_loop(loop):
    project, _ = loop
    rater = project.memberships.get(role="rater").user
    token = Token.objects.create(user=rater)
    client = APIClient()

    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.post(next_url(project)).status_code == 200
    client.credentials(HTTP_AUTHORIZATION="Token not-a-key")
    assert client.post(next_url(project)).status_code == 401
    type(rater).objects.filter(pk=rater.pk).update(is_active=False)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.post(next_url(project)).status_code == 401


def test_a_rater_reads_their_own_progress(loop):
    project, client = loop
    screen = client.post(next_url(project)).json()
    client.post(judgment_url(screen["assignment_id"]), {"values": answers(screen)}, format="json")
    client.post(next_url(project))

    response = client.get(f"/api/v1/projects/{project.pk}/progress/")

    assert response.json() == {"done": 1, "assigned": 1, "remaining": 0, "total": 2}
    outsider = add_raters(rating_project(), prefix="outsider")[0]
    assert client_for(outsider).get(f"/api/v1/projects/{project.pk}/progress/").status_code == 404
