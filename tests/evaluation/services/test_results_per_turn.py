"""Results of a project rating each assistant turn: the mean per system and turn position beside the scores of
whole outputs."""

import pytest
from django.test import Client

from tests.conftest import client_for
from tests.evaluation.export.test_export_per_turn import _study

pytestmark = pytest.mark.django_db


def test_results_give_the_mean_per_system_and_turn(lead):
    project = _study()
    project.memberships.create(user=lead, role="lead")
    body = client_for(lead).get(f"/api/v1/projects/{project.pk}/results/", {"n_resamples": 0}).json()
    turns = {(t["system"], t["turn"]): (round(t["mean"], 9), t["n"]) for t in body["turns"]}
    # values 1 + (k + turn + len(rater)) % 5 for items k = 0..2 and raters w1 (len 2) and w22 (len 3)
    expected = {
        (s, t): (round(sum(1 + (k + t + n) % 5 for k in range(3) for n in (2, 3)) / 6, 9), 6)
        for s, ts in (("a", (0, 2)), ("b", (0,)))
        for t in ts
    }
    assert turns == expected
    assert {t["criterion"] for t in body["turns"]} == {"helpful"}
    # the stored index stays the id; the label counts assistant turns and messages from 1, as the screen does
    assert {(t["system"], t["turn"]): t["turn_label"] for t in body["turns"]} == {
        ("a", 0): "assistant turn 1 (message 1)",
        ("a", 2): "assistant turn 2 (message 3)",
        ("b", 0): "assistant turn 1 (message 1)",
    }
    assert [s["system"] for s in body["criteria"][0]["systems"]] and body["n_judgments"] == 18


def test_the_results_page_names_each_turn_as_the_screen_does(lead):
    project = _study()
    project.memberships.create(user=lead, role="lead")
    browser = Client()
    browser.force_login(lead)
    page = browser.get(f"/projects/{project.pk}/results/")
    assert page.status_code == 200
    section = page.content.decode().split('data-testid="turn-means"')[1].split("</section>")[0]
    assert "<td>a</td><td>assistant turn 2 (message 3)</td>" in section
    assert "turn 2</td>" not in section.replace("assistant turn 2", "")
