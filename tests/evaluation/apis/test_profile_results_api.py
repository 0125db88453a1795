"""Results by rater profile through the API, on a hand-computed case: per value of the field the results per
system and the agreement of the raters with that value, and the post-stratified system means."""

import pytest

from annotation.models import Membership, ProfileField, RaterProfile
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

# Rater → (profile value, their ratings of (item, system)). The two "en" raters agree exactly.
RATINGS = {
    "en1": ("en", {("i1", "A"): 4, ("i1", "B"): 2, ("i2", "A"): 2, ("i2", "B"): 1}),
    "en2": ("en", {("i1", "A"): 4, ("i1", "B"): 2, ("i2", "A"): 2, ("i2", "B"): 1}),
    "de1": ("de", {("i1", "A"): 5, ("i1", "B"): 5, ("i2", "A"): 5, ("i2", "B"): 3}),
}


@pytest.fixture
def study(lead):
    project = ProjectFactory(profile_consent="I agree.")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    ProfileField.objects.create(project=project, name="language", kind="choice", choices=["en", "de"])
    items = {name: ItemFactory(project=project, external_id=name, systems=["A", "B"]) for name in ("i1", "i2")}
    for username, (language, ratings) in RATINGS.items():
        user = UserFactory(username=username)
        membership = MembershipFactory(project=project, user=user, role=Membership.Role.RATER)
        RaterProfile.objects.create(
            membership=membership, consented=True, answers={"language": language}, answered_at="2024-03-01T10:00:00Z"
        )
        for (item, system), value in ratings.items():
            JudgmentFactory(item=items[item], output=items[item].outputs.get(system=system), rater=user, value=value)
    return project, client_for(lead)


def test_results_and_agreement_per_value_and_the_post_stratified_means(study):
    project, client = study

    response = client.post(
        f"/api/v1/projects/{project.pk}/results/profile/",
        {"field": "language", "target": {"en": 0.5, "de": 0.5}, "n_resamples": 200},
        format="json",
    )

    assert response.status_code == 200, response.content
    body = response.json()
    per_value = {v["value"]: v for v in body["breakdown"]["values"]}
    assert {v: per_value[v]["n_raters"] for v in per_value} == {"de": 1, "en": 2}
    means = {v: {s["system"]: s["mean"] for s in per_value[v]["results"]["criteria"][0]["systems"]} for v in per_value}
    assert means == {"en": {"A": 3.0, "B": 1.5}, "de": {"A": 5.0, "B": 4.0}}
    # the "en" raters agree exactly; one "de" rater has no one to agree with
    (en_agreement,) = per_value["en"]["agreement"]
    assert en_agreement["value"] == 1.0 and en_agreement["n_raters"] == 2 and en_agreement["n_units"] == 4
    (de_agreement,) = per_value["de"]["agreement"]
    assert de_agreement["value"] is None and de_agreement["error"]
    # (3 + 5) / 2 and (1.5 + 4) / 2, where the raw means are 22 / 6 and 14 / 6
    systems = {s["system"]: s for s in body["post_stratified"]["criteria"][0]["systems"]}
    assert systems["A"]["estimate"] == 4.0 and systems["B"]["estimate"] == 2.75
    assert systems["A"]["raw_mean"] == pytest.approx(22 / 6) and systems["B"]["raw_mean"] == pytest.approx(14 / 6)
    low, high = systems["A"]["ci"]
    assert low <= 4.0 <= high


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"field": "age"}, "one of the project's profile fields (language)"),
        ({"field": "language", "target": {"en": 0.5, "fr": 0.5}}, "values no rater gave: fr"),
        ({"field": "language", "target": {"en": 0.5, "de": 0.6}}, "sum to 1"),
    ],
)
def test_bad_requests_are_a_400_naming_the_problem(study, body, message):
    project, client = study
    response = client.post(f"/api/v1/projects/{project.pk}/results/profile/", body, format="json")
    assert response.status_code == 400
    assert message in str(response.json())


def test_rater_models_fitted_on_each_values_raters_alone(study):
    project, client = study

    response = client.post(
        f"/api/v1/projects/{project.pk}/results/profile/",
        {"field": "language", "rater_models": True, "n_resamples": 0},
        format="json",
    )

    assert response.status_code == 200, response.content
    per_value = {v["value"]: v for v in response.json()["breakdown"]["values"]}
    (en,) = per_value["en"]["rater_models"]
    assert en["n_raters"] == 2 and en["n_judgments"] == 8 and len(en["raters"]) == 2
    (de,) = per_value["de"]["rater_models"]
    assert de["n_raters"] == 1 and de["n_judgments"] == 4
