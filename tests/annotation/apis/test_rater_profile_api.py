"""Rater profiles through the API: the lead's form (checked, fixed once the study starts), the consent a rater
gives or declines before the first screen, answers checked and stored against the membership."""

import pytest

from annotation.models import Membership, RaterProfile
from tests.annotation.factories import MembershipFactory
from tests.annotation.rating import add_raters, rating_project
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

FORM = {
    "consent": "Your answers are used to break the results down by language. You may stop at any time.",
    "fields": [
        {"name": "native language", "kind": "choice", "choices": ["en", "de", "other"], "required": True},
        {"name": "age", "kind": "number", "sensitive": True},
        {"name": "country", "kind": "text"},
    ],
}


@pytest.fixture
def study(lead):
    project = rating_project(n_items=2)
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    (rater,) = add_raters(project)
    lead_client = client_for(lead)
    assert lead_client.put(f"/api/v1/projects/{project.pk}/profile/form/", FORM, format="json").status_code == 200
    return project, client_for(rater), lead_client


def test_a_rater_consents_before_the_first_screen_and_the_answers_are_kept_with_the_membership(study):
    project, rater, _ = study
    url = f"/api/v1/projects/{project.pk}/profile/"

    refused = rater.post(f"/api/v1/projects/{project.pk}/next/")
    assert refused.status_code == 409 and "profile form first" in refused.json()["detail"]
    form = rater.get(url).json()
    assert form["consent"] == FORM["consent"] and form["answered"] is None
    assert [f["name"] for f in form["fields"]] == ["native language", "age", "country"]

    stored = rater.post(url, {"consent": True, "answers": {"native language": "de", "age": 34}}, format="json")

    assert stored.status_code == 201, stored.content
    profile = RaterProfile.objects.get()
    assert profile.membership.project == project and profile.consented
    assert profile.answers == {"native language": "de", "age": 34.0}
    assert rater.post(f"/api/v1/projects/{project.pk}/next/").status_code == 200


def test_a_rater_who_declines_is_served_nothing_and_keeps_no_answers(study):
    project, rater, _ = study

    declined = rater.post(
        f"/api/v1/projects/{project.pk}/profile/", {"consent": False, "answers": {"age": 50}}, format="json"
    )

    assert declined.status_code == 201
    assert RaterProfile.objects.get().answers == {}
    refused = rater.post(f"/api/v1/projects/{project.pk}/next/")
    assert refused.status_code == 403 and "declined" in refused.json()["detail"]


@pytest.mark.parametrize(
    ("answers", "field", "message"),
    [
        ({"age": 30}, "answers.native language", "required"),
        ({"native language": "fr"}, "answers.native language", "choose one of en, de, other"),
        ({"native language": "en", "age": "old"}, "answers.age", "must be a number"),
        ({"native language": "en", "age": 1e300}, "answers.age", "finite number"),
        ({"native language": "en", "age": 10**400}, "answers.age", "finite number"),
        ({"native language": "en", "country": "a\x00b"}, "answers.country", "NUL"),
        ({"native language": "en", "shoe size": 9}, "answers", "unknown field"),
    ],
)
def test_bad_answers_are_a_400_naming_the_field_and_store_nothing(study, answers, field, message):
    project, rater, _ = study
    response = rater.post(
        f"/api/v1/projects/{project.pk}/profile/", {"consent": True, "answers": answers}, format="json"
    )
    assert response.status_code == 400
    assert message in " ".join(response.json()[field]), response.json()
    assert not RaterProfile.objects.exists()


@pytest.mark.parametrize(
    ("form", "field", "message"),
    [
        ({"consent": "", "fields": FORM["fields"]}, "consent", "needs the consent text"),
        ({"consent": "ok", "fields": [{"name": "x", "kind": "colour"}]}, "fields[0].kind", "one of choice"),
        (
            {"consent": "ok", "fields": [{"name": "x", "kind": "choice", "choices": ["a"]}]},
            "fields[0].choices",
            "two or more",
        ),
        (
            {"consent": "ok", "fields": [{"name": "x", "kind": "text", "sensitive": "yes"}]},
            "fields[0].sensitive",
            "true or false",
        ),
        (
            {"consent": "ok", "fields": [{"name": "x", "kind": "text"}, {"name": "x", "kind": "text"}]},
            "fields[1].name",
            "unique",
        ),
    ],
)
def test_a_bad_form_is_a_400_naming_the_field(study, form, field, message):
    project, _, lead_client = study
    response = lead_client.put(f"/api/v1/projects/{project.pk}/profile/form/", form, format="json")
    assert response.status_code == 400
    assert message in " ".join(response.json()[field]), response.json()


def test_the_lead_edits_the_form_until_the_study_starts(study):
    project, rater, lead_client = study
    url = f"/api/v1/projects/{project.pk}/profile/form/"
    edited = {**FORM, "fields": FORM["fields"][:1]}
    assert lead_client.put(url, edited, format="json").json()["fields"][0]["name"] == "native language"

    rater.post(
        f"/api/v1/projects/{project.pk}/profile/",
        {"consent": True, "answers": {"native language": "en"}},
        format="json",
    )

    refused = lead_client.put(url, FORM, format="json")
    assert refused.status_code == 400 and "the study has started" in refused.json()["fields"][0]
    assert lead_client.get(url).json()["started"] is True
