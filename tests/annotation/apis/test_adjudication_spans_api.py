"""Adjudicating an error-span (ESA) project through the API: the span rule queues the item whose raters marked
errors that do not overlap, the adjudicator is served every rater's spans pooled as unnamed proposals, answers
each (accept, edit, reject) and adds one, and the answer with its spans is stored apart from the judgments, which
stay as they were; the item never returns to the queue."""

import json
from html import unescape

import pytest
from django.test import Client

from annotation.models import AdjudicatedSpan, AdjudicatedValue, AdjudicationCase, ErrorSpan, Judgment
from tests.annotation.factories import UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

SOURCE = "The cat sat on the mat."
TEXTS = {"split": "Le chien était assis sur le tapis.", "agreed": "Le chat est assis sur la natte."}
# Each rater's answer per item: on "split" the spans [3, 8) "chien" and [9, 14) "était" overlap nothing of the
# other rater's [28, 34) "tapis."; on "agreed" both mark "natte" (overlapping), scores 20 apart.
ANSWERS = {
    "split": (
        {
            "score": 40,
            "spans": [{"start": 3, "end": 8, "severity": "major"}, {"start": 9, "end": 14, "severity": "minor"}],
        },
        {"score": 70, "spans": [{"start": 28, "end": 34, "severity": "minor"}]},
    ),
    "agreed": (
        {"score": 60, "spans": [{"start": 25, "end": 30, "severity": "minor"}]},
        {"score": 80, "spans": [{"start": 24, "end": 31, "severity": "minor"}]},
    ),
}


@pytest.fixture
def study(staff):
    api = client_for(staff)
    made = api.post(
        "/api/v1/projects/",
        {
            "name": "esa adjudication",
            "task_type": "esa",
            "criteria": [{"name": "quality"}],
            "raters_per_item": 2,
            "double_annotation_share": 1.0,
        },
        format="json",
    )
    assert made.status_code == 201, made.content
    pk = made.json()["id"]
    lines = [
        {"external_id": name, "input": SOURCE, "outputs": [{"system": "secret-mt", "text": text}]}
        for name, text in TEXTS.items()
    ]
    imported = api.post(
        f"/api/v1/projects/{pk}/items/import/",
        data="\n".join(map(json.dumps, lines)).encode(),
        content_type="application/x-ndjson",
    )
    assert imported.status_code in (200, 201), imported.content
    raters = []
    for name in ("named-rater-1", "named-rater-2", "adjudicator"):
        user = UserFactory(username=name)
        role = "adjudicator" if name == "adjudicator" else "rater"
        added = api.post(f"/api/v1/projects/{pk}/members/", {"username": name, "role": role}, format="json")
        assert added.status_code in (200, 201), added.content
        raters.append(user)
    return pk, api, raters[:2], raters[2]


def _judge_everything(pk, raters):
    for k, rater in enumerate(raters):
        client = client_for(rater)
        while (screen := client.post(f"/api/v1/projects/{pk}/next/")).status_code == 200:
            body = screen.json()
            [output] = body["item"]["outputs"]
            name = next(n for n, text in TEXTS.items() if text == output["text"])
            stored = client.post(
                f"/api/v1/assignments/{body['assignment_id']}/judgment/",
                {"values": [{"criterion": "quality", "value": ANSWERS[name][k]}]},
                format="json",
            )
            assert stored.status_code == 201, stored.content


def test_spans_that_do_not_overlap_queue_the_item_and_the_adjudicator_answers_the_pooled_spans(study):
    pk, api, raters, adjudicator = study
    url = f"/api/v1/projects/{pk}/adjudication/"
    rule = api.put(url, {"enabled": True, "threshold": None}, format="json")
    assert rule.status_code == 200, rule.content

    # When both raters judge both items
    _judge_everything(pk, raters)
    judgments_before = list(Judgment.objects.order_by("id").values_list("id", "rater_id", "value", "is_current"))
    spans_before = list(ErrorSpan.objects.order_by("id").values_list("id", "judgment_id", "start", "end", "severity"))

    # Then only the item whose spans do not overlap is queued (the other's scores differ, but no threshold is set)
    assert api.get(url).json()["n_cases"] == 1
    case = AdjudicationCase.objects.get()
    assert case.item.external_id == "split" and case.criteria == ["quality"]

    # The adjudicator sees every rater's spans pooled, in offset order, with nothing naming a rater or system
    adjudicator_client = client_for(adjudicator)
    served = adjudicator_client.post(f"{url}next/")
    assert served.status_code == 200, served.content
    body = served.json()
    [output] = body["item"]["outputs"]
    assert [(p["start"], p["end"], p["severity"]) for p in output["proposed_spans"]] == [
        (3, 8, "major"),
        (9, 14, "minor"),
        (28, 34, "minor"),
    ]
    shown = sorted(v["shown"] for a in body["answers"] for v in a["values"])
    assert shown == ["major: “chien”; minor: “était” · score 40", "minor: “tapis.” · score 70"]
    for secret in ("secret-mt", "named-rater", "origin", "proposal"):
        assert secret not in served.content.decode(), secret

    # An answer leaving a pooled span unanswered is refused, naming it; nothing is stored
    half = {"score": 55, "spans": [{"start": 3, "end": 8, "severity": "major", "origin": "accepted", "proposal": 0}]}
    answer_url = f"/api/v1/adjudication/{case.pk}/answer/"
    refused = adjudicator_client.post(answer_url, {"values": [{"criterion": "quality", "value": half}]}, format="json")
    assert refused.status_code == 400 and "proposed spans 1, 2 not answered" in refused.content.decode()
    assert not AdjudicatedValue.objects.exists()

    # The adjudicator accepts "chien", edits "était" to major, rejects "tapis." and adds "Le"
    answer = {
        "score": 35,
        "spans": [
            {"start": 3, "end": 8, "severity": "major", "origin": "accepted", "proposal": 0},
            {"start": 9, "end": 14, "severity": "major", "origin": "edited", "proposal": 1},
            {"start": 28, "end": 34, "severity": "minor", "origin": "rejected", "proposal": 2},
            {"start": 0, "end": 2, "severity": "minor"},
        ],
    }
    stored = adjudicator_client.post(answer_url, {"values": [{"criterion": "quality", "value": answer}]}, format="json")
    assert stored.status_code == 201, stored.content
    [value] = AdjudicatedValue.objects.all()
    assert value.value == 35.0 and value.output.system == "secret-mt"
    assert list(AdjudicatedSpan.objects.order_by("start").values_list("start", "end", "severity", "origin")) == [
        (0, 2, "minor", "added"),
        (3, 8, "major", "accepted"),
        (9, 14, "major", "edited"),
        (28, 34, "minor", "rejected"),
    ]
    assert list(Judgment.objects.order_by("id").values_list("id", "rater_id", "value", "is_current")) == (
        judgments_before
    )
    assert (
        list(ErrorSpan.objects.order_by("id").values_list("id", "judgment_id", "start", "end", "severity"))
        == spans_before
    )

    # Never re-queued: a rater's revision that disagrees even more queues nothing; the queue is empty
    first = client_for(raters[0])
    assignment = Judgment.objects.filter(rater=raters[0], item=case.item).get().assignment_id
    revised = first.post(
        f"/api/v1/assignments/{assignment}/judgment/",
        {
            "values": [
                {
                    "criterion": "quality",
                    "value": {"score": 5, "spans": [{"start": 15, "end": 20, "severity": "major"}]},
                }
            ]
        },
        format="json",
    )
    assert revised.status_code == 201, revised.content
    assert AdjudicationCase.objects.count() == 1
    assert adjudicator_client.post(f"{url}next/").status_code == 204
    again = adjudicator_client.post(answer_url, {"values": [{"criterion": "quality", "value": answer}]}, format="json")
    assert again.status_code == 409


def test_with_a_threshold_scores_further_apart_queue_the_item_too(study, staff):
    pk, api, raters, _ = study
    api.put(f"/api/v1/projects/{pk}/adjudication/", {"enabled": True, "threshold": 10}, format="json")

    _judge_everything(pk, raters)

    assert sorted(AdjudicationCase.objects.values_list("item__external_id", flat=True)) == ["agreed", "split"]
    browser = Client()
    browser.force_login(staff)
    page = browser.get(f"/projects/{pk}/adjudication/")
    assert "overlaps none of another rater's spans, or raters' values of an output are more than 10 apart" in (
        unescape(page.content.decode())
    )
