"""Adjudication through the API: the lead's rule queues disagreeing items, the queue is served to the project's
adjudicators only, blind to who said what, one answer per item, stored apart from the judgments and never
re-queued."""

import pytest

from annotation.models import AdjudicatedValue, AdjudicationCase, Assignment, Judgment, Membership
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.annotation.rating import add_raters, rating_project
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

# Each rater's fluency for each output of an item: the raters disagree by 4 points on item "split" only.
VALUES = {"split": (1, 5), "agreed": (3, 3)}


@pytest.fixture
def study(lead):
    project = rating_project(n_items=2, n_target=2, systems=["bart", "t5"])
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    items = list(project.items.order_by("id"))
    for item, name in zip(items, VALUES, strict=True):
        item.external_id = name
        item.save(update_fields=["external_id"])
    raters = add_raters(project, 2)
    adjudicator = UserFactory(username="adjudicator")
    lead_client = client_for(lead)
    added = lead_client.post(
        f"/api/v1/projects/{project.pk}/members/", {"username": "adjudicator", "role": "adjudicator"}, format="json"
    )
    assert added.status_code in (200, 201), added.content
    return project, raters, adjudicator, lead_client


def judge_everything(project, raters):
    for k, rater in enumerate(raters):
        client = client_for(rater)
        while (screen := client.post(f"/api/v1/projects/{project.pk}/next/")).status_code == 200:
            body = screen.json()
            item = Assignment.objects.get(pk=body["assignment_id"]).item.external_id
            values = [
                {"criterion": "fluency", "position": o["position"], "value": VALUES[item][k]}
                for o in body["item"]["outputs"]
            ]
            stored = client.post(
                f"/api/v1/assignments/{body['assignment_id']}/judgment/", {"values": values}, format="json"
            )
            assert stored.status_code == 201, stored.content


def test_rule_queues_the_disagreeing_item_and_the_adjudicator_answers_it_once(study):
    project, raters, adjudicator, lead_client = study
    url = f"/api/v1/projects/{project.pk}/adjudication/"
    rule = lead_client.put(url, {"enabled": True, "threshold": 1}, format="json")
    assert rule.status_code == 200 and rule.json()["n_cases"] == 0

    # When both raters judge both items (one rated 1 and 5, the other 3 and 3)
    judge_everything(project, raters)
    judgments_before = list(Judgment.objects.order_by("id").values_list("id", "rater_id", "value", "is_current"))

    # Then the item they disagree on, and only it, is queued
    assert lead_client.get(url).json() | {"threshold": 1.0} == {
        "enabled": True,
        "threshold": 1.0,
        "n_cases": 1,
        "n_adjudicated": 0,
        "n_waiting": 1,
        "n_held": 0,
    }
    case = AdjudicationCase.objects.get()
    assert case.item.external_id == "split" and case.criteria == ["fluency"]

    # The adjudicator is served it with both answers, unnamed, and no system or rater name anywhere
    adjudicator_client = client_for(adjudicator)
    served = adjudicator_client.post(f"{url}next/")
    assert served.status_code == 200
    body = served.json()
    assert body["case_id"] == case.pk and body["disagreed_on"] == ["fluency"]
    assert [a["answer"] for a in body["answers"]] == ["Answer 1", "Answer 2"]
    assert sorted(v["value"] for a in body["answers"] for v in a["values"]) == [1, 1, 5, 5]
    assert all(len({v["value"] for v in a["values"]}) == 1 for a in body["answers"])  # one rater per answer
    text = served.content.decode()
    for secret in ("bart", "t5", *(r.username for r in raters), "rater_id", "username"):
        assert secret not in text.replace("bart on ", "").replace("t5 on ", ""), secret
    imported = list(case.item.outputs.order_by("position").values_list("text", flat=True))
    assert [o["text"] for o in body["item"]["outputs"]] == imported

    # Its answer is stored apart from the judgments, which are untouched
    answer = adjudicator_client.post(
        f"/api/v1/adjudication/{case.pk}/answer/",
        {
            "values": [
                {"criterion": "fluency", "position": 0, "value": 2},
                {"criterion": "fluency", "position": 1, "value": 4},
            ]
        },
        format="json",
    )
    assert answer.status_code == 201, answer.content
    assert sorted(AdjudicatedValue.objects.values_list("output__system", "value")) == [("bart", 2.0), ("t5", 4.0)]
    assert (
        list(Judgment.objects.order_by("id").values_list("id", "rater_id", "value", "is_current")) == judgments_before
    )

    # One answer per item; the queue is empty
    again = adjudicator_client.post(
        f"/api/v1/adjudication/{case.pk}/answer/",
        {
            "values": [
                {"criterion": "fluency", "position": 0, "value": 5},
                {"criterion": "fluency", "position": 1, "value": 5},
            ]
        },
        format="json",
    )
    assert again.status_code == 409 and "adjudicated already" in again.json()["detail"]
    assert adjudicator_client.post(f"{url}next/").status_code == 204
    assert lead_client.get(url).json()["n_adjudicated"] == 1

    # A rater revising their answer to disagree even more does not queue the item again
    first = client_for(raters[0])
    assignment = Assignment.objects.get(rater=raters[0], item=case.item)
    revised = first.post(
        f"/api/v1/assignments/{assignment.pk}/judgment/",
        {"values": [{"criterion": "fluency", "position": p, "value": 1} for p in (0, 1)]},
        format="json",
    )
    assert revised.status_code == 201 and revised.json()["revision"]
    assert AdjudicationCase.objects.count() == 1
    assert adjudicator_client.post(f"{url}next/").status_code == 204


def test_the_queue_is_for_the_projects_adjudicators_only(study):
    project, raters, adjudicator, lead_client = study
    lead_client.put(f"/api/v1/projects/{project.pk}/adjudication/", {"enabled": True}, format="json")
    judge_everything(project, raters)
    case = AdjudicationCase.objects.get()
    other = rating_project(n_items=1, n_target=2, systems=["bart", "t5"])
    outsider = UserFactory(username="adjudicator-of-b")
    MembershipFactory(project=other, user=outsider, role=Membership.Role.ADJUDICATOR)
    answer = {"values": [{"criterion": "fluency", "position": p, "value": 3} for p in (0, 1)]}

    # An adjudicator of project B sees nothing of project A, and is served nothing in B
    b = client_for(outsider)
    assert b.post(f"/api/v1/projects/{project.pk}/adjudication/next/").status_code == 404
    assert b.post(f"/api/v1/adjudication/{case.pk}/answer/", answer, format="json").status_code == 404
    assert b.post(f"/api/v1/projects/{other.pk}/adjudication/next/").status_code == 204
    # A plain rater gets no adjudication screen and cannot answer
    rater = client_for(raters[0])
    refused = rater.post(f"/api/v1/projects/{project.pk}/adjudication/next/")
    assert refused.status_code == 403 and "adjudicators" in refused.json()["detail"]
    assert rater.post(f"/api/v1/adjudication/{case.pk}/answer/", answer, format="json").status_code == 403
    # An adjudicator is not a rater: no work screens, and no place in the rule's counts
    a = client_for(adjudicator)
    assert a.post(f"/api/v1/projects/{project.pk}/next/").status_code == 403
    # Nor do leads read or answer the queue as adjudicators
    assert lead_client.post(f"/api/v1/projects/{project.pk}/adjudication/next/").status_code == 403
    assert not AdjudicatedValue.objects.exists()


def test_a_second_adjudicator_is_not_served_the_item_the_first_holds(study):
    project, raters, adjudicator, lead_client = study
    second = UserFactory(username="adjudicator-2")
    MembershipFactory(project=project, user=second, role=Membership.Role.ADJUDICATOR)
    lead_client.put(f"/api/v1/projects/{project.pk}/adjudication/", {"enabled": True}, format="json")
    judge_everything(project, raters)
    url = f"/api/v1/projects/{project.pk}/adjudication/next/"

    held = client_for(adjudicator).post(url).json()["case_id"]

    assert client_for(adjudicator).post(url).json()["case_id"] == held  # resumed
    assert client_for(second).post(url).status_code == 204
    answer = {"values": [{"criterion": "fluency", "position": p, "value": 3} for p in (0, 1)]}
    refused = client_for(second).post(f"/api/v1/adjudication/{held}/answer/", answer, format="json")
    assert refused.status_code == 409 and "Another adjudicator" in refused.json()["detail"]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"enabled": "yes"}, "enabled", "true or false"),
        ({"enabled": True, "threshold": "1"}, "threshold", "a number or null"),
        ({"enabled": True, "threshold": -1}, "threshold", "from 0"),
        ({"enabled": True, "threshold": 1e300}, "threshold", "from 0"),
        ({"enabled": True, "threshold": 10**400}, "threshold", "from 0"),
        ({"enabled": True, "threshold": True}, "threshold", "a number or null"),
    ],
)
def test_a_bad_rule_is_a_400_naming_the_field(study, body, field, message):
    project, _, _, lead_client = study
    response = lead_client.put(f"/api/v1/projects/{project.pk}/adjudication/", body, format="json")
    assert response.status_code == 400
    assert message in " ".join(response.json()[field])
    project.refresh_from_db()
    assert not project.adjudicate


def test_bad_adjudicated_values_are_a_400_and_store_nothing(study):
    project, raters, adjudicator, lead_client = study
    lead_client.put(f"/api/v1/projects/{project.pk}/adjudication/", {"enabled": True}, format="json")
    judge_everything(project, raters)
    client = client_for(adjudicator)
    case_id = client.post(f"/api/v1/projects/{project.pk}/adjudication/next/").json()["case_id"]

    response = client.post(
        f"/api/v1/adjudication/{case_id}/answer/",
        {"values": [{"criterion": "fluency", "position": 0, "value": 9}]},
        format="json",
    )

    assert response.status_code == 400
    problems = " ".join(response.json()["values"])
    assert "off the scale" in problems and "position 1: no value given" in problems
    assert not AdjudicatedValue.objects.exists()
    assert AdjudicationCase.objects.get().adjudicated_at is None


def test_an_adjudication_form_with_a_position_int_cannot_read_is_refused_not_a_500(study, client):
    project, raters, adjudicator, lead_client = study
    lead_client.put(f"/api/v1/projects/{project.pk}/adjudication/", {"enabled": True, "threshold": 1}, format="json")
    judge_everything(project, raters)
    client.force_login(adjudicator)
    assert client.get(f"/projects/{project.pk}/adjudicate/").status_code == 200  # the case is held
    case, criterion = AdjudicationCase.objects.get(), project.criteria.get()

    # "²".isdigit() is true, but int("²") fails
    refused = client.post(f"/adjudication/{case.pk}/submit/", {f"v-{criterion.pk}-²": "3", f"v-{criterion.pk}-1": "3"})

    assert refused.status_code == 400
    assert not AdjudicatedValue.objects.exists()
