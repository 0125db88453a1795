"""The judge-test and study-planning APIs over HTTP: the reports as the services give them, bad
options as 400s naming the problem, raters refused."""

import pytest

from evaluation.services import judge_alt_test_report, judge_prediction_powered_report
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.conftest import client_for
from tests.evaluation.judge_studies import likert_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(lead):
    project, _ = likert_study(lead)
    return project


def test_alt_test_api(study, lead_client):
    answer = lead_client.get(f"/api/v1/projects/{study.pk}/judges/alt-test/", {"epsilon": 0.2, "q": 0.1})
    assert answer.status_code == 200
    assert answer.json() == judge_alt_test_report(project=study, epsilon=0.2, q=0.1)
    row = answer.json()["criteria"][0]["judges"][0]
    assert row["version"] == "gpt-4o-2024-08-06 · 9f2c41d0 · 2025-03-01"
    assert {"winning_rate", "advantage_probability", "passed", "comparisons", "notes"} <= set(row["overall"])


def test_alt_test_api_with_wilcoxon_and_an_expert(study, lead_client):
    query = {"epsilon": 0.2, "test": "wilcoxon", "expert": "r1"}
    answer = lead_client.get(f"/api/v1/projects/{study.pk}/judges/alt-test/", query)
    assert answer.status_code == 200
    assert answer.json() == judge_alt_test_report(project=study, epsilon=0.2, test="wilcoxon", expert="r1")
    assert [c["rater"] for c in answer.json()["criteria"][0]["judges"][0]["overall"]["comparisons"]] == ["r0", "r2"]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"epsilon": 2}, "epsilon"),
        ({"alignment": "f1"}, "alignment"),
        ({"test": "sign"}, "test"),
        ({"expert": "nobody"}, "expert 'nobody' is not a rater of this project"),
        ({"judge": "claude"}, "judge 'claude' is not in this project"),
        ({"criterion": "style"}, "criterion 'style' is not in this project"),
    ],
)
def test_alt_test_api_refuses_bad_options(study, lead_client, query, message):
    answer = lead_client.get(f"/api/v1/projects/{study.pk}/judges/alt-test/", query)
    assert answer.status_code == 400 and message in str(answer.json())


def test_prediction_powered_and_confusion_apis(study, lead_client):
    base = f"/api/v1/projects/{study.pk}/judges"
    answer = lead_client.get(f"{base}/prediction-powered/", {"judge": "gpt", "confidence": 0.9})
    assert answer.status_code == 200
    assert answer.json() == judge_prediction_powered_report(project=study, judge="gpt", confidence=0.9)
    confusion = lead_client.get(f"{base}/confusion/", {"judge": "gpt", "criterion": "fluency"}).json()
    assert confusion["labels"] == ["1", "2", "3", "4", "5"]
    assert sum(c["count"] for r in confusion["rows"] for c in r["cells"]) == confusion["n_units"] > 0
    assert lead_client.get(f"{base}/confusion/", {"judge": "gpt"}).status_code == 400


def test_study_plan_api(study, lead_client):
    url = f"/api/v1/projects/{study.pk}/plan/"
    answer = lead_client.post(
        url,
        {
            "criterion": "fluency",
            "comparison": "mean_difference",
            "effect": 0.3,
            "items_grid": [30, 90],
            "raters_grid": [1, 2],
        },
        format="json",
    )
    assert answer.status_code == 200, answer.json()
    plan = answer.json()
    assert len(plan["points"]) == 4 and plan["now"]["systems"] == ["bart", "pegasus"]
    pilot = [{"item": "a", "system": "x", "rater": "w", "value": 3}]
    thin = lead_client.post(
        url, {"criterion": "fluency", "comparison": "win_rate", "effect": 0.6, "pilot": pilot}, format="json"
    )
    assert thin.status_code == 400 and "too thin to plan from" in thin.json()["detail"]
    bad = lead_client.post(
        url, {"criterion": "fluency", "comparison": "win_rate", "effect": 0.6, "pilot": [{"item": "a"}]}, format="json"
    )
    assert bad.status_code == 400 and "pilot record 1" in bad.json()["detail"]
    started = lead_client.post(f"{url}apply/", {"raters_per_item": 3}, format="json")
    assert started.status_code == 400 and "once raters have started" in started.json()["detail"]


def test_raters_are_refused(study):
    rater = UserFactory(username="a-rater")
    MembershipFactory(project=study, user=rater, role="rater")
    client = client_for(rater)
    assert client.get(f"/api/v1/projects/{study.pk}/judges/alt-test/").status_code == 403
    assert client.post(f"/api/v1/projects/{study.pk}/plan/", {}, format="json").status_code == 403
