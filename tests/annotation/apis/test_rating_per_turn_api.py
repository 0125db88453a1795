"""A project rating conversations per turn (rating_unit "turn" or "both"): its setting, its items, the screen the
rater API serves and the judgments it takes, each carrying the assistant turn judged."""

import json
import re

import pytest

from annotation.models import Judgment, Project
from annotation.services import assignment_next_for_rater
from tests.annotation.rating import add_raters, rating_project
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

CONTEXT = [{"role": "user", "text": "Is there an earlier train?"}]
# assistant turns at indexes 0 and 2 of each output
WHOLE_A = [
    {"role": "assistant", "text": "Yes, at 7:10."},
    {"role": "user", "text": "How much is it?"},
    {"role": "assistant", "text": "Twelve euros."},
]
WHOLE_B = [
    {"role": "assistant", "text": "No."},
    {"role": "user", "text": "Are you sure?"},
    {"role": "assistant", "text": "There is one at 6:55."},
]


def _create(api, **fields):
    body = {
        "name": f"chat {fields}",
        "task_type": "likert",
        "criteria": [{"name": "helpful", "scale_min": 1, "scale_max": 5}],
        **fields,
    }
    return api.post("/api/v1/projects/", body, format="json")


def _import(api, project_id, *lines):
    body = "".join(json.dumps(line) + "\n" for line in lines)
    return api.post(f"/api/v1/projects/{project_id}/items/import/", body, content_type="application/x-ndjson")


def per_turn_project(staff, unit="turn"):
    api = client_for(staff)
    created = _create(api, rating_unit=unit, randomise_output_order=False)
    assert created.status_code == 201, created.content
    assert created.json()["rating_unit"] == unit
    line = {
        "external_id": "c1",
        "input": CONTEXT,
        "outputs": [{"system": "a", "turns": WHOLE_A}, {"system": "b", "turns": WHOLE_B}],
    }
    imported = _import(api, created.json()["id"], line)
    assert imported.status_code in (200, 201), imported.content
    return created.json()["id"]


def _values(turns=(0, 2), whole=False, value=4):
    values = [{"criterion": "helpful", "position": p, "turn": t, "value": value} for p in (0, 1) for t in turns]
    if whole:
        values += [{"criterion": "helpful", "position": p, "value": value} for p in (0, 1)]
    return values


def _next(project_id):
    (rater,) = add_raters(Project.objects.get(pk=project_id))
    api = client_for(rater)
    screen = api.post(f"/api/v1/projects/{project_id}/next/")
    assert screen.status_code == 200
    return rater, api, screen.json()


def test_rating_per_turn_is_refused_for_types_that_rate_whole_outputs_and_for_unknown_units(staff):
    api = client_for(staff)
    pairwise = api.post(
        "/api/v1/projects/",
        {"name": "pw", "task_type": "pairwise", "criteria": [{"name": "better"}], "rating_unit": "turn"},
        format="json",
    )
    assert pairwise.status_code == 400
    assert "rating_unit" in pairwise.json() and "rates whole outputs only" in json.dumps(pairwise.json())
    unknown = _create(api, rating_unit="sentence")
    assert unknown.status_code == 400 and "unknown rating unit 'sentence'" in json.dumps(unknown.json())
    assert _create(api).json()["rating_unit"] == "conversation"


def test_a_per_turn_project_refuses_an_output_that_is_not_a_conversation_with_an_assistant_turn(staff):
    api = client_for(staff)
    project_id = _create(api, rating_unit="turn").json()["id"]
    plain = {"external_id": "p1", "input": CONTEXT, "outputs": [{"system": "a", "text": "Yes, at 7:10."}]}
    users_only = {"external_id": "p2", "input": "hi", "outputs": [{"system": "a", "turns": [CONTEXT[0]]}]}
    refused = _import(api, project_id, plain, users_only)
    assert refused.status_code == 400
    errors = refused.json()["errors"]
    assert [e["line"] for e in errors] == [1, 2]
    assert all(e["error"].startswith("outputs[1]: this project rates every assistant turn") for e in errors)


def test_the_screen_lists_the_rated_turns_and_the_judgments_carry_them(staff):
    project_id = per_turn_project(staff)
    rater, api, screen = _next(project_id)
    assert screen["rating_unit"] == "turn"
    assert [o["rated_turns"] for o in screen["item"]["outputs"]] == [[0, 2], [0, 2]]
    stored = api.post(
        f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
        {"values": _values(), "client_token": "t1"},
        format="json",
    )
    assert stored.status_code == 201, stored.content
    rows = Judgment.objects.filter(rater=rater).order_by("output__position", "turn")
    assert [(j.output.system, j.turn, j.value) for j in rows] == [
        ("a", 0, 4.0),
        ("a", 2, 4.0),
        ("b", 0, 4.0),
        ("b", 2, 4.0),
    ]
    assert sorted((v["position"], v["turn"]) for v in stored.json()["values"]) == [(0, 0), (0, 2), (1, 0), (1, 2)]
    # Given the same token again, the stored rows come back and nothing is written.
    replay = api.post(
        f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
        {"values": _values(), "client_token": "t1"},
        format="json",
    )
    assert replay.status_code == 200 and Judgment.objects.filter(rater=rater).count() == 4
    # A revision replaces every current row, turn by turn.
    revised = api.post(
        f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
        {"values": _values(value=2), "client_token": "t2"},
        format="json",
    )
    assert revised.status_code == 201 and revised.json()["revision"]
    current = Judgment.objects.filter(rater=rater, is_current=True)
    assert sorted(current.values_list("turn", "value")) == [(0, 2.0), (0, 2.0), (2, 2.0), (2, 2.0)]
    assert Judgment.objects.filter(rater=rater).count() == 8
    listed = client_for(staff).get(f"/api/v1/projects/{project_id}/judgments/").json()["results"]
    assert sorted((j["system"], j["turn"], j["value"]) for j in listed) == [
        ("a", 0, 2.0),
        ("a", 2, 2.0),
        ("b", 0, 2.0),
        ("b", 2, 2.0),
    ]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (_values(turns=(0,)), "criterion 'helpful', position 0, turn 2: no value given"),
        (_values(turns=(0, 2, 1)), "turn 1 is not an assistant turn of this output"),
        (_values(turns=(0, 2, 7)), "turn 7 is not an assistant turn of this output"),
        (_values(turns=(0, 2)) + [{"criterion": "helpful", "position": 0, "value": 3}], "turn is missing"),
        (_values(turns=(0, 2, 2)), "answered twice"),
    ],
)
def test_a_value_for_a_missing_wrong_or_repeated_turn_is_a_400_naming_it(staff, values, message):
    project_id = per_turn_project(staff)
    rater, api, screen = _next(project_id)
    refused = api.post(f"/api/v1/assignments/{screen['assignment_id']}/judgment/", {"values": values}, format="json")
    assert refused.status_code == 400
    assert message in json.dumps(refused.json()), refused.json()
    assert not Judgment.objects.filter(rater=rater).exists()


def test_a_project_rating_both_asks_each_turn_and_the_whole_output(staff):
    project_id = per_turn_project(staff, unit="both")
    rater, api, screen = _next(project_id)
    url = f"/api/v1/assignments/{screen['assignment_id']}/judgment/"
    missing = api.post(url, {"values": _values()}, format="json")
    assert missing.status_code == 400 and "criterion 'helpful', position 0: no value given" in json.dumps(
        missing.json()
    )
    assert api.post(url, {"values": _values(whole=True)}, format="json").status_code == 201
    assert sorted(Judgment.objects.filter(rater=rater).values_list("turn", flat=True), key=str) == [
        0,
        0,
        2,
        2,
        None,
        None,
    ]


def test_a_whole_output_project_refuses_a_turn(db):
    project = rating_project(n_items=1)
    (rater,) = add_raters(project)
    assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
    values = [{"criterion": "fluency", "turn": 0, "value": 3}]
    refused = client_for(rater).post(
        f"/api/v1/assignments/{assignment.pk}/judgment/", {"values": values}, format="json"
    )
    assert refused.status_code == 400
    assert "this project rates whole outputs; leave turn out" in json.dumps(refused.json())


def test_the_rating_page_asks_under_each_assistant_turn_and_takes_the_form_without_javascript(client, staff):
    project_id = per_turn_project(staff)
    (rater,) = add_raters(Project.objects.get(pk=project_id))
    client.force_login(rater)
    client.get(f"/projects/{project_id}/instructions/")
    html = client.get(f"/projects/{project_id}/rate/").content.decode()
    assert html.count('class="transcript rated-turns"') == 2
    fields = sorted(set(re.findall(r'name="(v-\d+-\d-t\d)"', html)))
    assert [f.split("-", 2)[2] for f in fields] == ["0-t0", "0-t2", "1-t0", "1-t2"]
    assignment_id = int(re.search(r'action="/assignments/(\d+)/submit/"', html).group(1))
    posted = client.post(
        f"/assignments/{assignment_id}/submit/", {**dict.fromkeys(fields, "5"), "client_token": "form"}
    )
    assert posted.status_code == 302
    assert sorted(Judgment.objects.filter(rater=rater).values_list("turn", "value")) == [
        (0, 5.0),
        (0, 5.0),
        (2, 5.0),
        (2, 5.0),
    ]
    # Revising shows the stored answers under their turns.
    again = client.get(f"/assignments/{assignment_id}/").content.decode()
    assert again.count("checked") == 4
