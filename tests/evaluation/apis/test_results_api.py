"""GET /api/v1/projects/{id}/results/: who may read it, what it holds, what it leaves out."""

import numpy as np
import pytest
from django.utils import timezone

from annotation.models import Membership, RaterExclusion
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.conftest import client_for
from tests.evaluation.factories import pairwise_study, rated_study

pytestmark = pytest.mark.django_db

FAST = "?n_resamples=200&test_resamples=2000"


def url(project, query=FAST):
    return f"/api/v1/projects/{project.id}/results/{query}"


def test_lead_gets_per_system_scores_with_intervals_and_significance(project, lead_client):
    rated_study(project)
    body = lead_client.get(url(project)).json()
    assert body["task_type"] == "likert" and body["n_judgments"] == 8 * 2 * 2 * 2
    fluency = body["criteria"][0]
    assert [s["system"] for s in fluency["systems"]] == ["good", "bad"]
    good = fluency["systems"][0]
    assert good["mean_ci"][0] <= good["mean"] <= good["mean_ci"][1]
    assert good["median_ci"][0] <= good["median"] <= good["median_ci"][1]
    assert sum(good["distribution"].values()) == good["n"] == 16
    (comparison,) = fluency["comparisons"]
    assert comparison["significant"] and comparison["p_holm"] < 0.05
    assert body["options"]["n_resamples"] == 200 and body["options"]["seed"] == 0


def test_same_request_same_numbers(project, lead_client):
    rated_study(project)
    assert lead_client.get(url(project)).json() == lead_client.get(url(project)).json()


def test_raters_get_403_and_outsiders_404(project, rater_client):
    assert rater_client.get(url(project)).status_code == 403
    assert client_for(UserFactory(username="stranger")).get(url(project)).status_code == 404


def test_gold_items_are_left_out_and_counted(project, lead_client):
    rated_study(project, n_items=4, gold_items=2)
    body = lead_client.get(url(project)).json()
    assert body["excluded"]["gold_items"] == 2 * 2 * 2 * 2
    assert body["n_judgments"] == 4 * 2 * 2 * 2
    assert body["criteria"][0]["n_items"] == 4


def test_excluded_raters_are_left_out_in_one_place(project, lead_client):
    raters, _ = rated_study(project, n_items=4, n_raters=3)
    RaterExclusion.objects.create(project=project, rater=raters[0], created_at=timezone.now())
    body = lead_client.get(url(project)).json()
    assert body["excluded"]["excluded_raters"] == 4 * 2 * 2 and body["excluded"]["n_excluded_raters"] == 1
    assert body["criteria"][0]["n_raters"] == 2


def test_pairwise_win_tie_lose_and_strengths(lead):
    project = ProjectFactory(task_type="pairwise", criteria=["overall"])
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    pairwise_study(project, n_items=30)
    body = client_for(lead).get(url(project)).json()
    overall = body["criteria"][0]
    assert [s["system"] for s in overall["systems"]] == ["a", "b", "c"]
    assert all(s["strength_ci"][0] < s["strength"] < s["strength_ci"][1] for s in overall["systems"])
    ab = next(p for p in overall["pairs"] if (p["system_a"], p["system_b"]) == ("a", "b"))
    assert ab["wins"] + ab["ties"] + ab["losses"] == ab["n"] == 30 and ab["losses"] == 0
    assert overall["bradley_terry"]["ties"] == "half"


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?n_resamples=-1", "n_resamples"),
        ("?test=t", "test"),
        ("?ties=rao", "ties"),
        ("?normalisation=rank", "normalisation"),
    ],
)
def test_bad_options_answer_400(project, lead_client, query, field):
    response = lead_client.get(url(project, query))
    assert response.status_code == 400 and field in response.json()


def test_empty_project_answers_with_an_explanation(project, lead_client):
    body = lead_client.get(url(project)).json()
    assert body["criteria"][0]["error"] == "no judgments on this criterion yet"


def test_query_count_does_not_grow_with_the_data(project, lead_client, django_assert_max_num_queries):
    rated_study(project, n_items=3)
    # 14: the results, one query for the saved calibrators and one for the retired items line
    with django_assert_max_num_queries(14) as small:
        lead_client.get(url(project))
    rated_study(project, n_items=20, seed=1)
    with django_assert_max_num_queries(len(small.captured_queries)):
        lead_client.get(url(project))


def test_with_a_rankme_modulus_scores_are_log_normalised_per_rater_by_default(lead):
    # magnitude estimates: rater 2 uses ten times rater 1's numbers, and both put "good" at four times "bad"
    project = ProjectFactory(task_type="rankme", criteria=["quality"], rankme_modulus=100)
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    raters = [UserFactory(username=f"magnitude-{k}") for k in range(2)]
    for k in range(6):
        item = ItemFactory(project=project, systems=["good", "bad"], references=["r"])
        for output in item.outputs.all():
            for scale, rater in zip((1, 10), raters, strict=True):
                value = (400 if output.system == "good" else 100) * scale * (1 + k / 10)
                JudgmentFactory(item=item, output=output, rater=rater, value=value)

    body = client_for(lead).get(url(project)).json()

    assert body["options"]["normalisation"] == "log"
    good, bad = body["criteria"][0]["systems"]
    assert (good["system"], bad["system"]) == ("good", "bad")
    # log scores centred on each rater's mean log: ±log(4)/2 whatever the rater's own scale
    assert good["mean"] == pytest.approx(np.log(4) / 2) and bad["mean"] == pytest.approx(-np.log(4) / 2)
