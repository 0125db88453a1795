"""Error-span projects (ESA, MQM) through the API: created with their settings, items imported with a model's
proposed spans, screens served with them, answers stored with their spans in one transaction, exactly once,
revised, and refused naming the field and position."""

import json
import re
from html import unescape

import pytest
from django.contrib.auth import get_user_model

from annotation.models import ErrorSpan, Judgment, Project, ProposedSpan
from tests.annotation.factories import UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

OUTPUT = "Le chat 😀 s'est assis\r\nsur le tapis."  # an astral character and a CRLF before the offsets used below
SOURCE = "The cat sat on the mat."


def _project(staff, task_type, criteria, **extra):
    made = client_for(staff).post(
        "/api/v1/projects/",
        {"name": f"{task_type} spans", "task_type": task_type, "criteria": criteria, **extra},
        format="json",
    )
    assert made.status_code == 201, made.content
    return made.json()


def _import(staff, pk, lines):
    body = "\n".join(json.dumps(line) for line in lines).encode()
    return client_for(staff).post(
        f"/api/v1/projects/{pk}/items/import/", data=body, content_type="application/x-ndjson"
    )


def _rater(staff, pk, name="rater"):
    user = UserFactory(username=name)
    joined = client_for(staff).post(
        f"/api/v1/projects/{pk}/members/", {"username": name, "role": "rater"}, format="json"
    )
    assert joined.status_code == 201, joined.content
    return client_for(user)


@pytest.fixture
def esa(staff):
    project = _project(staff, "esa", [{"name": "quality"}])
    proposed = [{"start": 8, "end": 9, "severity": "minor"}, {"start": 0, "end": 2, "severity": "major"}]
    line = {
        "external_id": "s1",
        "input": SOURCE,
        "outputs": [{"system": "mt", "text": OUTPUT, "proposed_spans": proposed}],
    }
    assert _import(staff, project["id"], [line]).status_code in (200, 201)
    return project


def test_projects_take_their_settings_completed_with_the_defaults(staff):
    esa = _project(staff, "esa", [{"name": "quality"}])
    assert esa["task_config"] == {"severities": ["minor", "major"]}
    assert esa["criteria"][0]["scale_min"] == 0 and esa["criteria"][0]["scale_max"] == 100
    mqm = _project(staff, "mqm", [{"name": "errors"}])
    assert [r["weight"] for r in mqm["task_config"]["weights"]] == [25, 0.1, 1, 5, 5]
    assert Project.objects.get(pk=mqm["id"]).task_config["typology"][-1] == {"name": "Source error", "source": True}
    api = client_for(staff)
    for body, field in [
        ({"task_type": "mqm", "criteria": [{"name": "a"}, {"name": "b"}]}, "criteria"),
        ({"task_type": "mqm", "criteria": [{"name": "a"}], "task_config": {"weights": []}}, "task_config"),
        ({"task_type": "esa", "criteria": [{"name": "a", "scale_min": 1, "scale_max": 7}]}, "criteria"),
        (
            {
                "task_type": "likert",
                "criteria": [{"name": "a", "scale_min": 1, "scale_max": 5}],
                "task_config": {"typology": []},
            },
            "task_config",
        ),
        (
            {"task_type": "mqm", "criteria": [{"name": "a"}], "task_config": {"weights": [{"weight": "NaN"}]}},
            "task_config",
        ),
    ]:
        refused = api.post("/api/v1/projects/", {"name": "bad", **body}, format="json")
        assert refused.status_code == 400 and field in refused.json(), refused.content
    assert not Project.objects.filter(name="bad").exists()


def test_bad_proposed_spans_refuse_the_import_naming_line_and_field(staff):
    project = _project(staff, "esa", [{"name": "quality"}])
    good = {"external_id": "ok", "input": SOURCE, "outputs": [{"system": "mt", "text": "abc"}]}
    bad = {
        **good,
        "external_id": "bad",
        "outputs": [{"system": "mt", "text": "abc", "proposed_spans": [{"start": 0, "end": 4, "severity": "minor"}]}],
    }
    refused = _import(staff, project["id"], [good, bad])
    assert refused.status_code == 400
    assert [(e["line"], e["error"][:28]) for e in refused.json()["errors"]] == [(2, "outputs[1].proposed_spans[0]")]
    likert = _project(staff, "likert", [{"name": "fluency", "scale_min": 1, "scale_max": 5}])
    refused = _import(
        staff, likert["id"], [{**bad, "outputs": [{"system": "mt", "text": "abc", "proposed_spans": []}]}]
    )
    assert refused.status_code == 400 and "takes no proposed spans" in refused.content.decode()
    assert not ProposedSpan.objects.exists()


def test_an_answer_is_stored_with_its_spans_once_and_revised(staff, esa):
    rater = _rater(staff, esa["id"])
    screen = rater.post(f"/api/v1/projects/{esa['id']}/next/").json()
    [output] = screen["item"]["outputs"]
    assert output["text"] == OUTPUT
    assert [(p["start"], p["end"]) for p in output["proposed_spans"]] == [(0, 2), (8, 9)]  # in offset order
    answer = {
        "score": 61,
        "no_error": False,
        "spans": [
            {"start": 0, "end": 2, "severity": "major", "origin": "accepted", "proposal": 0},
            {"start": 8, "end": 9, "severity": "minor", "origin": "rejected", "proposal": 1},
            {"start": 10, "end": 24, "severity": "minor"},  # "s'est assis\r\ns": across the CRLF
        ],
    }
    url = f"/api/v1/assignments/{screen['assignment_id']}/judgment/"
    first = rater.post(
        url, {"values": [{"criterion": "quality", "value": answer}], "client_token": "t1"}, format="json"
    )
    assert first.status_code == 201, first.content
    [judgment] = Judgment.objects.filter(is_current=True)
    assert judgment.value == 61
    stored = list(ErrorSpan.objects.filter(judgment=judgment).order_by("start"))
    assert [(s.start, s.end, s.severity, s.origin) for s in stored] == [
        (0, 2, "major", "accepted"),
        (8, 9, "minor", "rejected"),
        (10, 24, "minor", "added"),
    ]
    assert OUTPUT[stored[2].start : stored[2].end] == "s'est assis\r\ns"
    assert stored[0].proposal == ProposedSpan.objects.get(start=0) and stored[2].proposal is None
    returned = first.json()["values"][0]["value"]
    assert returned["score"] == 61 and returned["spans"][0]["proposal"] == 0

    # the same token again: nothing new; with other spans: a conflict, nothing new either
    again = rater.post(
        url, {"values": [{"criterion": "quality", "value": answer}], "client_token": "t1"}, format="json"
    )
    assert again.status_code == 200, again.content
    other = {**answer, "spans": [*answer["spans"][:2], {"start": 10, "end": 23, "severity": "minor"}]}
    conflict = rater.post(
        url, {"values": [{"criterion": "quality", "value": other}], "client_token": "t1"}, format="json"
    )
    assert conflict.status_code == 409, conflict.content
    assert (Judgment.objects.count(), ErrorSpan.objects.count()) == (1, 3)

    # a revision: the old row and its spans stay, not current
    revised = rater.post(
        url, {"values": [{"criterion": "quality", "value": other}], "client_token": "t2"}, format="json"
    )
    assert revised.status_code == 201, revised.content
    assert ErrorSpan.objects.filter(judgment=judgment).count() == 3
    assert not Judgment.objects.get(pk=judgment.pk).is_current
    current = Judgment.objects.get(is_current=True)
    assert list(ErrorSpan.objects.filter(judgment=current).values_list("end", flat=True).order_by("start")) == [
        2,
        9,
        23,
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"score": 50, "spans": [{"start": 0, "end": 40, "severity": "minor"}]}, "spans[0]: [0, 40) is not within"),
        ({"score": 50, "no_error": True, "spans": [{"start": 0, "end": 2, "severity": "minor"}]}, "no_error is true"),
        ({"score": 50, "spans": [{"start": 0, "end": 2, "severity": "fatal"}]}, "unknown severity 'fatal'"),
        ({"score": "NaN", "no_error": True, "spans": []}, "value.score must be a number"),
        ({"score": 1e30, "no_error": True, "spans": []}, "value.score 1e+30 is off the scale 0–100"),
        ({"score": 50, "spans": [{"start": 2**62, "end": 2**62 + 1, "severity": "minor"}]}, "is not within"),
        ({"score": 50, "spans": [{"start": 0, "end": 1, "severity": "minor"}] * 101}, "at most 100 spans"),
        ("no such answer", "value must be an object"),
    ],
)
def test_a_bad_answer_is_refused_naming_field_and_position_and_nothing_is_stored(staff, value, message):
    project = _project(staff, "esa", [{"name": "quality"}])
    _import(
        staff, project["id"], [{"external_id": "s1", "input": SOURCE, "outputs": [{"system": "mt", "text": OUTPUT}]}]
    )
    rater = _rater(staff, project["id"])
    screen = rater.post(f"/api/v1/projects/{project['id']}/next/").json()
    url = f"/api/v1/assignments/{screen['assignment_id']}/judgment/"
    refused = rater.post(url, {"values": [{"criterion": "quality", "position": 0, "value": value}]}, format="json")
    assert refused.status_code == 400, refused.content
    text = refused.content.decode()
    assert "values[0] (criterion 'quality', position 0)" in text and message in text, text
    assert not Judgment.objects.exists() and not ErrorSpan.objects.exists()


def test_numbers_too_large_for_json_are_refused(staff, esa):
    rater = _rater(staff, esa["id"])
    screen = rater.post(f"/api/v1/projects/{esa['id']}/next/").json()
    body = (
        '{"values": [{"criterion": "quality", "value": {"score": %s, "spans": [{"start": %s, "end": 3, '
        '"severity": "minor"}]}}]}'
    )
    for score, start in [("1e999", "0"), ("50", "1" + "0" * 40), ("NaN", "0")]:
        refused = rater.post(
            f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
            body % (score, start),
            content_type="application/json",
        )
        assert refused.status_code == 400, refused.content
    assert not Judgment.objects.exists()


def test_mqm_stores_the_penalty_and_source_spans(staff):
    project = _project(staff, "mqm", [{"name": "errors"}], show_reference=True)
    _import(
        staff,
        project["id"],
        [
            {
                "external_id": "s1",
                "input": SOURCE,
                "references": ["Die Katze."],
                "outputs": [{"system": "mt", "text": OUTPUT}],
            }
        ],
    )
    rater = _rater(staff, project["id"])
    screen = rater.post(f"/api/v1/projects/{project['id']}/next/").json()
    assert screen["item"]["references"] == ["Die Katze."] and screen["item"]["outputs"][0]["proposed_spans"] == []
    answer = {
        "spans": [
            {"start": 0, "end": 2, "severity": "major", "category": "Accuracy/Mistranslation"},
            {"start": 23, "end": 24, "severity": "minor", "category": "Fluency/Punctuation"},
            {"start": 4, "end": 7, "severity": "minor", "category": "Source error", "side": "source"},
        ]
    }
    stored = rater.post(
        f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
        {"values": [{"criterion": "errors", "value": answer}]},
        format="json",
    )
    assert stored.status_code == 201, stored.content
    judgment = Judgment.objects.get()
    assert judgment.value == pytest.approx(5 + 0.1 + 1)
    source = ErrorSpan.objects.get(side="source")
    assert SOURCE[source.start : source.end] == "cat" and source.category == "Source error"


def _hidden_state(html: str, field: str) -> dict:
    value = re.search(rf'<input type="hidden" name="{field}" value="([^"]*)"', html).group(1)
    return json.loads(unescape(value))


def test_the_rater_page_gives_back_an_answer_to_revise_and_a_refused_form(staff, esa, client):
    rater_api = _rater(staff, esa["id"])
    screen = rater_api.post(f"/api/v1/projects/{esa['id']}/next/").json()
    answer = {
        "score": 61,
        "spans": [
            {"start": 0, "end": 2, "severity": "major", "origin": "accepted", "proposal": 0},
            {"start": 8, "end": 9, "severity": "minor", "origin": "rejected", "proposal": 1},
        ],
    }
    assert (
        rater_api.post(
            f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
            {"values": [{"criterion": "quality", "value": answer}]},
            format="json",
        ).status_code
        == 201
    )
    client.force_login(get_user_model().objects.get(username="rater"))
    criterion = screen["criteria"][0]["id"]
    field = f"v-{criterion}-0"
    page = client.get(f"/assignments/{screen['assignment_id']}/").content.decode()
    state = _hidden_state(page, field)
    assert state["score"] == 61 and not state["no_error"]
    assert [(s["start"], s["status"], s["proposed"]) for s in state["spans"]] == [
        (0, "accepted", 0),
        (8, "rejected", 1),
    ]
    # a revision posted on the form with a span off the text is refused; the page comes back with what was posted
    bad = json.dumps(
        {
            **state,
            "spans": [
                *state["spans"],
                {"side": "target", "start": 3, "end": 99, "severity": "minor", "status": "added"},
            ],
        }
    )
    refused = client.post(f"/assignments/{screen['assignment_id']}/submit/", {field: bad, "client_token": "r1"})
    assert refused.status_code == 400 and "spans[2]: [3, 99) is not within the output" in unescape(
        refused.content.decode()
    )
    assert _hidden_state(refused.content.decode(), field)["spans"][2]["end"] == 99
    revised = client.post(
        f"/assignments/{screen['assignment_id']}/submit/", {field: json.dumps(state), "client_token": "r2"}
    )
    assert revised.status_code == 302 and Judgment.objects.filter(is_current=False).count() == 1


@pytest.mark.parametrize(
    ("span", "message"),
    [
        ({"start": 0, "end": 2, "severity": "major", "category": ["Accuracy"]}, "spans[0].category must be a name"),
        ({"start": 0, "end": 2, "severity": "major", "category": {"a": 1}}, "spans[0].category must be a name"),
        ({"start": 0, "end": 2, "severity": ["major"], "category": "Other"}, "spans[0].severity must be a name"),
    ],
)
def test_an_mqm_category_or_severity_that_is_no_string_is_a_400_naming_it(staff, span, message):
    project = _project(staff, "mqm", [{"name": "errors"}])
    line = {"external_id": "s1", "input": SOURCE, "outputs": [{"system": "mt", "text": OUTPUT}]}
    assert _import(staff, project["id"], [line]).status_code == 201
    rater = _rater(staff, project["id"])
    screen = rater.post(f"/api/v1/projects/{project['id']}/next/").json()
    refused = rater.post(
        f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
        {"values": [{"criterion": "errors", "value": {"spans": [span]}}]},
        format="json",
    )
    assert refused.status_code == 400 and message in refused.content.decode(), refused.content
    proposed = {**line, "external_id": "s2", "outputs": [{"system": "mt", "text": OUTPUT, "proposed_spans": [span]}]}
    refused_import = _import(staff, project["id"], [proposed])
    assert refused_import.status_code == 400 and message in refused_import.content.decode(), refused_import.content
    assert not Judgment.objects.exists() and not ProposedSpan.objects.exists()


@pytest.mark.parametrize(
    ("task_config", "message"),
    [
        ({"weights": [{"category": ["Other"], "weight": 1}]}, "task_config.weights[0].category must be a name"),
        ({"weights": [{"severity": {"minor": 1}, "weight": 1}]}, "task_config.weights[0].severity must be a name"),
        (
            {"typology": [{"name": "G" * 100, "children": ["C" * 100]}], "weights": [{"weight": 1}]},
            "typology[0].children[0]: the category '<group>/<child>' is 201 characters, longer than 200",
        ),
    ],
)
def test_an_mqm_config_with_a_bad_category_is_a_400_naming_it(staff, task_config, message):
    made = client_for(staff).post(
        "/api/v1/projects/",
        {"name": "mqm", "task_type": "mqm", "criteria": [{"name": "errors"}], "task_config": task_config},
        format="json",
    )
    assert made.status_code == 400 and message in made.content.decode(), made.content
    assert not Project.objects.exists()


def test_a_typology_category_of_200_characters_is_taken(staff):
    typology = [{"name": "G" * 100, "children": ["C" * 99]}]
    _project(staff, "mqm", [{"name": "errors"}], task_config={"typology": typology, "weights": [{"weight": 1}]})


@pytest.mark.parametrize(
    ("state", "message"),
    [
        (
            '{"spans": [{"start": 1%s, "end": 3, "severity": "minor", "status": "added"}], "score": 50}' % ("0" * 400),
            "is too large a number",
        ),
        ('{"spans": [], "no_error": true, "score": 1%s}' % ("0" * 400), "is too large a number"),
        ('{"spans": [{"start": 0, "end": 3, "severity": "min\\u0000or", "status": "added"}], "score": 50}', "NUL"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
)
def test_a_rater_form_posting_an_unreadable_state_is_a_400_naming_the_field(staff, esa, client, state, message):
    _rater(staff, esa["id"])
    client.force_login(get_user_model().objects.get(username="rater"))
    client.get(f"/projects/{esa['id']}/instructions/")
    page = client.get(f"/projects/{esa['id']}/rate/")
    field = re.search(r'name="(v-\d+-0)"', page.content.decode()).group(1)
    action = re.search(r'action="(/assignments/\d+/submit/)"', page.content.decode()).group(1)

    refused = client.post(action, {field: state, "client_token": "t"})

    assert refused.status_code == 400 and message in unescape(refused.content.decode())
    assert not Judgment.objects.exists()
