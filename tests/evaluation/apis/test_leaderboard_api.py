"""GET /projects/{id}/results/leaderboard/: integrity of the ranking, provisional marking and style control."""

import pytest

from annotation.models import Membership
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def _study(min_judgments=0):
    """a beats b 5 times to 2 (a answers at more length); b beats c 4 to 1."""
    project = ProjectFactory(
        task_type="pairwise",
        criteria=["overall"],
        task_config={"min_judgments_per_system": min_judgments} if min_judgments else {},
    )
    lead = UserFactory(username=f"lb-lead-{project.pk}")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    rater = UserFactory(username=f"lb-rater-{project.pk}")
    criterion = project.criteria.get()
    for first, second, value, n in (("a", "b", 2.0, 5), ("a", "b", 0.0, 2), ("b", "c", 2.0, 4), ("c", "b", 2.0, 1)):
        for _ in range(n):
            item = ItemFactory(project=project, systems=[first, second])
            for output in item.outputs.all():
                output.text = " ".join(["w"] * (10 + output.pk % 13 + (8 if output.system == "a" else 0)))
                output.save()
            JudgmentFactory(
                item=item, output=item.outputs.get(position=0), criterion=criterion, rater=rater, value=value
            )
    return project, client_for(lead)


def test_removals_to_flip_each_neighbour_pair_and_provisional():
    project, lead = _study(min_judgments=10)

    body = lead.get(f"/api/v1/projects/{project.pk}/results/leaderboard/").json()

    (criterion,) = body["criteria"]
    integrity = criterion["integrity"]
    assert [s["system"] for s in integrity["systems"]] == ["a", "b", "c"]
    # removing three of a's five wins over b levels them (the library's own example)
    assert integrity["margins"][0] == {**integrity["margins"][0], "upper": "a", "lower": "b", "removals_to_flip": 3}
    assert integrity["provisional"] is True and integrity["under_minimum"] == ["a", "c"]
    assert criterion["style"] is None


def test_style_control_is_an_option_and_answers_are_cached_until_a_judgment_comes_in():
    project, lead = _study()
    url = f"/api/v1/projects/{project.pk}/results/leaderboard/?style=true&n_resamples=20"

    first = lead.get(url).json()
    assert "criteria" in first, first
    style = first["criteria"][0]["style"]
    assert [c["feature"] for c in style["coefficients"]] == ["length"], style
    assert {s["system"] for s in style["systems"]} == {"a", "b", "c"}
    assert first["criteria"][0]["integrity"]["provisional"] is False
    assert lead.get(url).json() == first
    item = ItemFactory(project=project, systems=["c", "a"])
    JudgmentFactory(
        item=item,
        output=item.outputs.get(position=0),
        criterion=project.criteria.get(),
        rater=UserFactory(username="late"),
        value=2.0,
    )
    assert lead.get(url).json()["criteria"][0]["integrity"]["systems"] != first["criteria"][0]["integrity"]["systems"]


def test_a_rating_project_has_no_leaderboard_and_bad_options_are_400():
    project, lead = _study()
    likert = ProjectFactory(task_type="likert")
    MembershipFactory(project=likert, user=UserFactory(username="likert-lead"), role=Membership.Role.LEAD)

    assert (
        client_for(UserFactory(username="likert-lead"))
        .get(f"/api/v1/projects/{likert.pk}/results/leaderboard/")
        .status_code
        == 400
    )
    assert lead.get(f"/api/v1/projects/{project.pk}/results/leaderboard/?n_resamples=-1").status_code == 400


def test_excluding_a_rater_takes_their_judgments_out_of_a_cached_leaderboard():
    project, lead = _study()
    url = f"/api/v1/projects/{project.pk}/results/leaderboard/"
    before = lead.get(url).json()["criteria"][0]["integrity"]["systems"]
    rogue = UserFactory(username=f"lb-rogue-{project.pk}")
    MembershipFactory(project=project, user=rogue, role=Membership.Role.RATER)
    for _ in range(3):
        item = ItemFactory(project=project, systems=["c", "a"])
        JudgmentFactory(
            item=item, output=item.outputs.get(position=0), criterion=project.criteria.get(), rater=rogue, value=2.0
        )
    assert lead.get(url).json()["criteria"][0]["integrity"]["systems"] != before

    excluded = lead.post(
        f"/api/v1/projects/{project.pk}/qc/actions/",
        {"rater": rogue.username, "action": "exclude", "reason": "spam"},
        format="json",
    )

    assert excluded.status_code == 201, excluded.json()
    assert lead.get(url).json()["criteria"][0]["integrity"]["systems"] == before
