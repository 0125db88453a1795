"""Quality-control API: rules (versioned), the action log, a lead's actions and the rater report; leads
only (raters 403, outsiders 404), bad input answered with 400 naming the field."""

import pytest

from annotation.models import Membership, RaterAction
from tests.annotation.factories import ItemFactory, JudgmentFactory, UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def url(project, what):
    return f"/api/v1/projects/{project.pk}/qc/{what}/"


@pytest.mark.parametrize(
    "method, what, body",
    [
        ("get", "rules", None),
        ("put", "rules", {"action": "pause"}),
        ("get", "actions", None),
        ("post", "actions", {"rater": "rater", "action": "pause", "reason": "x"}),
        ("get", "raters", None),
        ("post", "apply", None),
    ],
)
def test_leads_only_raters_get_403_and_outsiders_404(project, rater, rater_client, method, what, body):
    outsider = client_for(UserFactory(username="outsider"))
    assert getattr(rater_client, method)(url(project, what), body, format="json").status_code == 403
    assert getattr(outsider, method)(url(project, what), body, format="json").status_code == 404
    assert not Membership.objects.get(user=rater).is_paused


def test_rules_default_then_saved_then_versioned_after_judging(project, lead_client):
    body = lead_client.get(url(project, "rules")).json()
    assert body["version"] == 0 and body["action"] == "warn"
    saved = lead_client.put(url(project, "rules"), {"gold_accuracy_threshold": 0.75, "action": "pause"}, format="json")
    assert saved.status_code == 200 and saved.json()["version"] == 1
    JudgmentFactory(item=ItemFactory(project=project))
    edited = lead_client.put(url(project, "rules"), {"min_gold_answered": 10}, format="json").json()
    assert (edited["version"], edited["min_gold_answered"], edited["action"]) == (2, 10, "pause")
    assert lead_client.get(url(project, "rules")).json()["version"] == 2


@pytest.mark.parametrize(
    "body, field",
    [
        ({"gold_accuracy_threshold": 2}, "gold_accuracy_threshold"),
        ({"gold_accuracy_threshold": "high"}, "gold_accuracy_threshold"),
        ({"action": "ban"}, "action"),
        ({"straight_line_run": -3}, "straight_line_run"),
    ],
)
def test_bad_rules_get_400_naming_the_field(project, lead_client, body, field):
    response = lead_client.put(url(project, "rules"), body, format="json")
    assert response.status_code == 400 and field in response.json()


def test_a_lead_pauses_and_resumes_a_rater_and_the_log_shows_it(project, rater, rater_client, lead_client, lead):
    response = lead_client.post(
        url(project, "actions"), {"rater": "rater", "action": "pause", "reason": "copy-pasting"}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["kind"] == "pause" and response.json()["by"] == "lead"
    assert rater_client.post(f"/api/v1/projects/{project.pk}/next/").status_code == 403
    lead_client.post(url(project, "actions"), {"rater": "rater", "action": "resume", "reason": "fixed"}, format="json")
    log = lead_client.get(url(project, "actions"), {"rater": "rater"}).json()
    assert [(a["kind"], a["reason"], a["rules_version"]) for a in log["results"]] == [
        ("resume", "fixed", None),
        ("pause", "copy-pasting", None),
    ]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"rater": "nobody", "action": "pause", "reason": "x"}, "rater"),
        ({"rater": "lead", "action": "pause", "reason": "x"}, "rater"),
        ({"rater": "rater", "action": "ban", "reason": "x"}, "action"),
        ({"rater": "rater", "action": "pause"}, "reason"),
        ({"rater": "rater", "action": "pause", "reason": "   "}, "reason"),
    ],
)
def test_bad_actions_get_400_and_write_nothing(project, rater, lead_client, body, field):
    response = lead_client.post(url(project, "actions"), body, format="json")
    assert response.status_code == 400 and field in response.json(), response.json()
    assert not RaterAction.objects.exists()


def test_resuming_an_excluded_rater_is_refused(project, rater, lead_client):
    lead_client.post(url(project, "actions"), {"rater": "rater", "action": "exclude", "reason": "spam"}, format="json")
    response = lead_client.post(
        url(project, "actions"), {"rater": "rater", "action": "resume", "reason": "x"}, format="json"
    )
    assert response.status_code == 400 and "include them again" in str(response.json())


def test_rater_report_lists_accuracy_flags_and_state(project, rater, lead_client):
    item = ItemFactory(project=project, gold={"fluency": {"sysA": 4}, "coherence": {"sysA": 2}})
    JudgmentFactory(item=item, rater=rater, value=4, criterion=project.criteria.get(name="fluency"))
    JudgmentFactory(item=item, rater=rater, value=5, criterion=project.criteria.get(name="coherence"))
    body = lead_client.get(url(project, "raters")).json()
    (row,) = body["raters"]
    assert row["rater"] == "rater" and row["gold"]["accuracy"] == 0.5 and row["gold"]["n_items"] == 1
    assert row["flags"]["n_screens"] == 1 and body["position_bias"] is None
    assert "user_id" not in row
