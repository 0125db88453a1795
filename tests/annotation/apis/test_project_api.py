"""Project creation and visibility through the API."""

import pytest

from tests.annotation.factories import ProjectFactory, UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

LIKERT = {
    "name": "p",
    "task_type": "likert",
    "instructions": "Rate.",
    "criteria": [{"name": "fluency", "scale_min": 1, "scale_max": 5}],
    "raters_per_item": 2,
    "double_annotation_share": 0.1,
    "gold_rate": 0.05,
}


def test_staff_creates_a_project_and_becomes_its_lead(staff):
    client = client_for(staff)
    response = client.post("/api/v1/projects/", LIKERT, format="json")
    assert response.status_code == 201, response.data
    body = response.json()
    assert body["criteria"] == [{"name": "fluency", "scale_min": 1.0, "scale_max": 5.0, "labels": [], "help_text": ""}]
    assert client.get(f"/api/v1/projects/{body['id']}/members/").json()["results"][0]["role"] == "lead"


def test_a_user_without_the_permission_cannot_create_projects(db):
    response = client_for(UserFactory()).post("/api/v1/projects/", LIKERT, format="json")
    assert response.status_code == 403


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"task_type": "essay"}, "task_type", "essay"),
        ({"criteria": []}, "criteria", "at least one criterion"),
        ({"criteria": [{"name": "f", "scale_min": 5, "scale_max": 1}]}, "criteria", "below scale_max"),
        (
            {"criteria": [{"name": "f", "scale_min": 1, "scale_max": 3, "labels": ["bad", "good"]}]},
            "criteria",
            "one label per scale point",
        ),
        ({"criteria": [{"name": "f", "scale_min": 1, "scale_max": 5}] * 2}, "criteria", "named twice"),
        ({"double_annotation_share": 1.5}, "double_annotation_share", "less than or equal to 1"),
        ({"raters_per_item": 0}, "raters_per_item", "greater than or equal to 1"),
    ],
)
def test_bad_project_settings_are_refused_by_field(staff, change, field, message):
    response = client_for(staff).post("/api/v1/projects/", {**LIKERT, **change}, format="json")
    assert response.status_code == 400
    assert message in str(response.json()[field])


def test_pairwise_projects_accept_and_ignore_scale_fields(staff):
    payload = {**LIKERT, "task_type": "pairwise", "criteria": [{"name": "overall", "scale_min": 0, "scale_max": 2}]}
    response = client_for(staff).post("/api/v1/projects/", payload, format="json")
    assert response.status_code == 201
    assert response.json()["criteria"][0]["scale_min"] is None


def test_rankme_criteria_default_to_a_0_to_100_slider(staff):
    payload = {**LIKERT, "task_type": "rankme", "criteria": [{"name": "quality"}]}
    criteria = client_for(staff).post("/api/v1/projects/", payload, format="json").json()["criteria"]
    assert (criteria[0]["scale_min"], criteria[0]["scale_max"]) == (0.0, 100.0)


def test_a_rankme_modulus_is_set_on_creation_and_read_back_in_the_detail(staff):
    client = client_for(staff)
    payload = {**LIKERT, "task_type": "rankme", "criteria": [{"name": "quality"}], "rankme_modulus": 100}
    created = client.post("/api/v1/projects/", payload, format="json")
    assert created.status_code == 201, created.data
    assert created.json()["rankme_modulus"] == 100.0
    assert client.get(f"/api/v1/projects/{created.json()['id']}/").json()["rankme_modulus"] == 100.0
    plain = client.post("/api/v1/projects/", {**payload, "name": "plain", "rankme_modulus": None}, format="json").json()
    assert plain["rankme_modulus"] is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"task_type": "likert"}, "only a rankme project takes a modulus; this one is 'likert'"),
        ({"rankme_modulus": 0}, "must be a positive finite number, got 0.0"),
        ({"rankme_modulus": -10}, "must be a positive finite number, got -10.0"),
        ({"rankme_modulus": "a lot"}, "A valid number is required."),
    ],
)
def test_a_bad_rankme_modulus_is_a_400_naming_it(staff, change, message):
    payload = {
        **LIKERT,
        "task_type": "rankme",
        "criteria": [{"name": "quality", "scale_min": 1, "scale_max": 5}],
        "rankme_modulus": 100,
        **change,
    }
    response = client_for(staff).post("/api/v1/projects/", payload, format="json")
    assert response.status_code == 400
    assert message in str(response.json()["rankme_modulus"])


def test_members_see_their_projects_only(project, rater_client):
    ProjectFactory(name="someone else's")
    names = [p["name"] for p in rater_client.get("/api/v1/projects/").json()["results"]]
    assert names == ["likert study"]


def test_lead_adds_a_rater_by_username(project, lead_client):
    UserFactory(username="newcomer")
    response = lead_client.post(
        f"/api/v1/projects/{project.id}/members/", {"username": "newcomer", "role": "rater"}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["role"] == "rater"
    unknown = lead_client.post(f"/api/v1/projects/{project.id}/members/", {"username": "ghost"}, format="json")
    assert unknown.status_code == 400 and "ghost" in str(unknown.json()["username"])


def test_staff_creates_users_with_validated_passwords(staff):
    client = client_for(staff)
    assert client.post("/api/v1/users/", {"username": "r1", "password": "rater-pass-1234x"}).status_code == 201
    weak = client.post("/api/v1/users/", {"username": "r2", "password": "123"})
    assert weak.status_code == 400 and "password" in weak.json()
    assert client.post("/api/v1/users/", {"username": "r1", "password": "rater-pass-1234x"}).status_code == 400


def test_only_staff_creates_users(lead_client, project):
    assert lead_client.post("/api/v1/users/", {"username": "x", "password": "rater-pass-1234x"}).status_code == 403


def test_token_login(api_client, db):
    UserFactory(username="alice", password="alice-pass-1234")
    response = api_client.post("/api/v1/auth/token/", {"username": "alice", "password": "alice-pass-1234"})
    assert response.status_code == 200 and response.json()["token"]
    bad = api_client.post("/api/v1/auth/token/", {"username": "alice", "password": "wrong"})
    assert bad.status_code == 400


def refuse_bob(user):
    return "Bob may not hold a token." if user.username == "bob" else None


def test_token_refusals_listed_in_the_settings_are_asked_first(api_client, db, settings):
    from rest_framework.authtoken.models import Token

    settings.CONCORD_TOKEN_REFUSALS = [f"{__name__}.refuse_bob"]
    bob = UserFactory(username="bob", password="bob-pass-12345")
    Token.objects.create(user=bob)  # held from before: refused now, it goes too
    UserFactory(username="alice", password="alice-pass-1234")
    refused = api_client.post("/api/v1/auth/token/", {"username": "bob", "password": "bob-pass-12345"})
    assert (refused.status_code, refused.json()) == (403, {"detail": "Bob may not hold a token."})
    assert not Token.objects.filter(user=bob).exists()
    assert api_client.post("/api/v1/auth/token/", {"username": "bob", "password": "wrong"}).status_code == 400
    alice = api_client.post("/api/v1/auth/token/", {"username": "alice", "password": "alice-pass-1234"})
    assert alice.status_code == 200 and alice.json()["token"] == Token.objects.get(user__username="alice").key
