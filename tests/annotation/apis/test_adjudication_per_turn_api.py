"""Adjudication in a project rating each assistant turn, through the API: raters disagreeing on one turn queue
the item, the adjudicator sees each answer's turn and answers turn by turn, the answers are stored with their turn
and the export puts each turn's answer on the rows of that turn."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from annotation.models import AdjudicatedValue, AdjudicationCase, Project
from evaluation.services import ExportOptions, export_write
from tests.annotation.apis.test_rating_per_turn_api import CONTEXT, WHOLE_A, WHOLE_B, _create, _import
from tests.annotation.factories import UserFactory
from tests.annotation.rating import add_raters
from tests.conftest import client_for
from tests.evaluation.export.studies import jsonl, read_zip

pytestmark = pytest.mark.django_db
User = get_user_model()


def _judged(staff, values_of_rater):
    """A per-turn project (outputs a and b, assistant turns 0 and 2), judged by one rater per entry of
    ``values_of_rater``: {(position, turn): value}; the lead's client and the adjudicator's."""
    lead = client_for(staff)
    created = _create(
        lead, rating_unit="turn", randomise_output_order=False, raters_per_item=2, double_annotation_share=1
    )
    assert created.status_code == 201, created.content
    project_id = created.json()["id"]
    outputs = [{"system": "a", "turns": WHOLE_A}, {"system": "b", "turns": WHOLE_B}]
    assert _import(lead, project_id, {"external_id": "c1", "input": CONTEXT, "outputs": outputs}).status_code in (
        200,
        201,
    )
    url = f"/api/v1/projects/{project_id}/adjudication/"
    assert lead.put(url, {"enabled": True, "threshold": 1}, format="json").status_code == 200
    project = Project.objects.get(pk=project_id)
    for rater, values in zip(add_raters(project, len(values_of_rater)), values_of_rater, strict=True):
        api = client_for(rater)
        screen = api.post(f"/api/v1/projects/{project_id}/next/").json()
        body = [{"criterion": "helpful", "position": p, "turn": t, "value": v} for (p, t), v in sorted(values.items())]
        stored = api.post(f"/api/v1/assignments/{screen['assignment_id']}/judgment/", {"values": body}, format="json")
        assert stored.status_code == 201, stored.content
    adjudicator = UserFactory(username="adjudicator")
    added = lead.post(
        f"/api/v1/projects/{project_id}/members/",
        {"username": adjudicator.username, "role": "adjudicator"},
        format="json",
    )
    assert added.status_code in (200, 201), added.content
    return project, lead, client_for(adjudicator)


# Both raters give output a's turns 1 and 5 and output b's turns 4 and 2, in opposite orders: their means per output
# agree, but each turn is 4 points apart. In the second study they agree on every turn, turns differing.
SPLIT_TURNS = [{(0, 0): 1, (0, 2): 5, (1, 0): 4, (1, 2): 2}, {(0, 0): 5, (0, 2): 1, (1, 0): 4, (1, 2): 2}]
AGREED_TURNS = [{(0, 0): 1, (0, 2): 5, (1, 0): 4, (1, 2): 2}] * 2


def test_raters_agreeing_turn_by_turn_queue_nothing(staff):
    project, lead, _ = _judged(staff, AGREED_TURNS)
    assert lead.get(f"/api/v1/projects/{project.pk}/adjudication/").json()["n_cases"] == 0


def test_a_disagreement_on_a_turn_is_adjudicated_turn_by_turn_and_exported_with_its_turn(staff, tmp_path):
    project, lead, adjudicator = _judged(staff, SPLIT_TURNS)
    case = AdjudicationCase.objects.get(project=project)
    assert case.criteria == ["helpful"]

    served = adjudicator.post(f"/api/v1/projects/{project.pk}/adjudication/next/")
    assert served.status_code == 200
    answers = served.json()["answers"]
    assert sorted({(v["position"], v["turn"]) for a in answers for v in a["values"]}) == [
        (0, 0),
        (0, 2),
        (1, 0),
        (1, 2),
    ]

    # an answer without the turns is refused, naming what is missing
    whole = adjudicator.post(
        f"/api/v1/adjudication/{case.pk}/answer/",
        {"values": [{"criterion": "helpful", "position": p, "value": 3} for p in (0, 1)]},
        format="json",
    )
    assert whole.status_code == 400 and "turn" in whole.content.decode()
    assert not AdjudicatedValue.objects.exists()  # nothing of the refused answer is kept
    answer = adjudicator.post(
        f"/api/v1/adjudication/{case.pk}/answer/",
        {
            "values": [
                {"criterion": "helpful", "position": p, "turn": t, "value": v}
                for (p, t), v in {(0, 0): 2, (0, 2): 4, (1, 0): 4, (1, 2): 2}.items()
            ]
        },
        format="json",
    )
    assert answer.status_code == 201, answer.content
    assert sorted(AdjudicatedValue.objects.values_list("output__system", "turn", "value")) == [
        ("a", 0, 2.0),
        ("a", 2, 4.0),
        ("b", 0, 4.0),
        ("b", 2, 2.0),
    ]

    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(formats=("jsonl",)), destination=path)
    rows = jsonl(read_zip(path)["data/judgments.jsonl"])
    assert {(r["system"], r["turn"], r["adjudicated"]) for r in rows} == {
        ("a", 0, 2),
        ("a", 2, 4),
        ("b", 0, 4),
        ("b", 2, 2),
    }


def test_the_adjudicators_page_asks_each_turn_and_shows_the_raters_answers_per_turn(staff):
    project, _, _ = _judged(staff, SPLIT_TURNS)
    browser = Client()
    browser.force_login(User.objects.get(username="adjudicator"))
    page = browser.get(f"/projects/{project.pk}/adjudicate/")
    assert page.status_code == 200
    html = page.content.decode()
    # one question per output and assistant turn, named as the raters' screen names it
    fields = sorted(set(re.findall(r'name="(v-\d+-\d-t\d)"', html)))
    assert [f.split("-", 2)[2] for f in fields] == ["0-t0", "0-t2", "1-t0", "1-t2"]
    assert html.count("· assistant turn 2 (message 3)") == 2
    assert "helpful (A, assistant turn 1 (message 1))" in html
    cells = re.findall(r'<tr data-testid="answer-row"><th scope="row">Answer \d</th>(.*?)</tr>', html)
    assert sorted(re.findall(r"<td>(.*?)</td>", row)[:2] for row in cells) == [["1", "5"], ["5", "1"]]

    case = AdjudicationCase.objects.get(project=project)
    answer = {field: value for field, value in zip(fields, ("2", "4", "4", "2"), strict=True)}
    done = browser.post(f"/adjudication/{case.pk}/submit/", answer)
    assert done.status_code == 302
    assert sorted(AdjudicatedValue.objects.values_list("output__system", "turn", "value")) == [
        ("a", 0, 2.0),
        ("a", 2, 4.0),
        ("b", 0, 4.0),
        ("b", 2, 2.0),
    ]
