"""The rater models service on hand-made studies: which models run for which answers, pseudonyms, soft
labels, a rater who always answers one point higher, gold left out, and the API and page around it."""

from unittest.mock import patch

import pytest
from django.test import Client

from annotation.models import Membership
from annotation.services.quality import rater_exclude
from evaluation.services import rater_models_compute, rater_models_report
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.evaluation.factories import pairwise_study, rated_study

pytestmark = pytest.mark.django_db

TRUTH = [1, 2, 3, 4, 2, 3]


def _one_point_high(project, *, gold_item=False):
    """Raters A and B answer the truth, C one point higher, on every item's only output (fluency)."""
    raters = [MembershipFactory(project=project, user=UserFactory(), role=Membership.Role.RATER).user for _ in "ABC"]
    criterion = project.criteria.get(name="fluency")
    items = [ItemFactory(project=project) for _ in TRUTH]
    if gold_item:
        items.append(ItemFactory(project=project, gold={"fluency": 5}))
    for item, truth in zip(items, TRUTH + [5], strict=False):
        output = item.outputs.get()
        for rater, shift in zip(raters, (0, 0, 1), strict=True):
            JudgmentFactory(item=item, output=output, criterion=criterion, rater=rater, value=min(truth + shift, 5))
    return raters, items


def test_likert_gets_categorical_and_scale_models_with_pseudonyms_and_soft_labels(project):
    _one_point_high(project, gold_item=True)
    report = rater_models_report(project=project, criterion="fluency")
    (c,) = report["criteria"]
    assert c["models"] == ["dawid_skene", "mace", "gaussian"]
    assert c["error"] is None
    assert [x["value"] for x in c["categories"]] == [1.0, 2.0, 3.0, 4.0, 5.0]
    # the gold item is left out
    assert (c["n_units"], c["n_raters"], c["n_judgments"]) == (6, 3, 18)
    assert [r["rater"] for r in c["raters"]] == ["rater-001", "rater-002", "rater-003"]
    first = c["units"][0]
    assert first["soft_label"] == pytest.approx([2 / 3, 1 / 3, 0, 0, 0])
    assert first["majority"] == 1.0 and first["dawid_skene"]["label"] == 1.0 and first["mace"]["label"] == 1.0
    # x = mu + b exactly: biases -1/3, -1/3, 2/3 (centred), the adjusted score the mean on a full design
    assert [r["gaussian"]["bias"] for r in c["raters"]] == pytest.approx([-1 / 3, -1 / 3, 2 / 3], abs=1e-6)
    assert [u["gaussian"]["score"] for u in c["units"]] == pytest.approx([u["mean"] for u in c["units"]])
    # Dawid–Skene sees C's shift: truth 2 is answered 3
    shifted = c["raters"][2]["dawid_skene"]["confusion"]
    assert shifted[1][2] == pytest.approx(1.0, abs=1e-6)
    overruled = [u for u in c["units"] if u["dawid_skene"]["label"] != u["majority"]]
    assert c["summary"]["dawid_skene"]["agrees_with_majority"] == pytest.approx(1 - len(overruled) / 6)


def test_a_criterion_without_judgments_and_an_unknown_one(project):
    _one_point_high(project)
    report = rater_models_report(project=project)
    assert [c["criterion"] for c in report["criteria"]] == ["fluency", "coherence"]
    assert report["criteria"][1]["error"] == "no judgments on this criterion yet"
    with pytest.raises(ValueError, match="unknown criterion 'nope'"):
        rater_models_report(project=project, criterion="nope")


def test_pairwise_outcomes_get_categorical_models_only(lead):
    project = ProjectFactory(task_type="pairwise", criteria=["overall"])
    pairwise_study(project, n_items=12)
    (c,) = rater_models_report(project=project)["criteria"]
    assert c["models"] == ["dawid_skene", "mace"]
    assert [x["value"] for x in c["categories"]] == [1.0, 2.0]
    assert c["n_units"] == 12 and "gaussian" not in c["units"][0]


def test_rankme_sliders_get_the_scale_model_only():
    project = ProjectFactory(task_type="rankme", criteria=["fluency"])
    rated_study(project, n_items=5, n_raters=3)
    (c,) = rater_models_report(project=project)["criteria"]
    assert c["models"] == ["gaussian"] and c["categories"] is None
    assert c["n_units"] == 10 and "dawid_skene" not in c["raters"][0]


def test_one_rater_is_too_thin(project):
    rater = MembershipFactory(project=project, role=Membership.Role.RATER).user
    item = ItemFactory(project=project)
    JudgmentFactory(item=item, output=item.outputs.get(), criterion=project.criteria.get(name="fluency"), rater=rater)
    (c, _) = rater_models_report(project=project)["criteria"]
    assert c["error"] == "no unit is rated by two raters: a rater model needs overlapping raters"


def test_api_answers_the_lead_and_names_a_bad_criterion(project, lead_client):
    _one_point_high(project)
    rater_models_compute(project=project)
    answer = lead_client.get(f"/api/v1/projects/{project.id}/rater-models/?criterion=fluency")
    assert answer.status_code == 200
    assert answer.json()["criteria"][0]["raters"][2]["gaussian"]["bias"] == pytest.approx(2 / 3, abs=1e-6)
    bad = lead_client.get(f"/api/v1/projects/{project.id}/rater-models/?criterion=nope")
    assert bad.status_code == 400 and bad.json()["detail"] == "unknown criterion 'nope'"
    assert lead_client.get(f"/api/v1/projects/{project.id}/rater-models/?seed=-1").status_code == 400


def test_page_shows_raters_and_is_linked_from_the_results(project, lead, rater):
    _one_point_high(project)
    rater_models_compute(project=project)
    client = Client()
    client.force_login(lead)
    html = client.get(f"/projects/{project.id}/rater-models/").content.decode()
    assert "Who disagrees, and how" in html and "rater-003" in html and "Dawid–Skene accuracy" in html
    assert "Noise (SD)" in html and "no judgments on this criterion yet" in html
    assert f"/projects/{project.id}/rater-models/" in client.get(f"/projects/{project.id}/results/").content.decode()
    client.force_login(rater)
    assert client.get(f"/projects/{project.id}/rater-models/").status_code == 403


@pytest.mark.parametrize("task_type", ["pairwise", "rankme"])
def test_page_renders_for_every_task_type(task_type, lead):
    project = ProjectFactory(task_type=task_type, criteria=["overall"])
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    if task_type == "pairwise":
        pairwise_study(project, n_items=9)
    else:
        rated_study(project, n_items=4, n_raters=3)
    rater_models_compute(project=project)
    client = Client()
    client.force_login(lead)
    html = client.get(f"/projects/{project.id}/rater-models/").content.decode()
    assert ("MACE competence" in html) == (task_type == "pairwise")
    assert ("Noise (SD)" in html) == (task_type == "rankme")


def test_the_stored_report_reads_a_fixed_number_of_queries(project, lead_client, django_assert_max_num_queries):
    _one_point_high(project)
    rater_models_compute(project=project)
    with django_assert_max_num_queries(25) as small:
        lead_client.get(f"/api/v1/projects/{project.id}/rater-models/")
    rated_study(project, n_items=20, n_raters=3)
    rater_models_compute(project=project)
    with django_assert_max_num_queries(len(small.captured_queries)):
        lead_client.get(f"/api/v1/projects/{project.id}/rater-models/")


def test_the_report_is_computed_by_a_job_stored_and_stale_once_judgments_come(
    project, lead_client, rater_client, django_capture_on_commit_callbacks
):
    raters, items = _one_point_high(project)
    url = f"/api/v1/projects/{project.id}/rater-models/"

    # Before any job: nothing stored, said so
    before = lead_client.get(url).json()
    assert before["criteria"] == [] and before["computed_at"] is None and before["stale"] and before["job"] is None
    assert before["n_judgments_now"] == 18

    # The lead starts the job (eager Celery runs it once the request commits); the API then reads its result,
    # the same report the service computes, without fitting anything itself
    with django_capture_on_commit_callbacks(execute=True):
        started = lead_client.post(f"{url}recompute/", {}, format="json")
    assert started.status_code == 202, started.content
    job = lead_client.get(f"/api/v1/jobs/{started.json()['job_id']}/").json()
    assert job["state"] == "success" and job["result"]["n_judgments"] == 18
    with patch("evaluation.services.rater_models_store.rater_models_report") as fit:
        stored = lead_client.get(url).json()
    fit.assert_not_called()
    assert stored["criteria"] == rater_models_report(project=project)["criteria"]
    assert stored["computed_at"] and stored["n_judgments_seen"] == 18 and not stored["stale"]
    assert stored["job"] == {"id": started.json()["job_id"], "state": "success", "progress": 1.0}

    # A judgment more makes it stale, the old report still served; the page says so and offers a recompute
    JudgmentFactory(item=items[0], output=items[0].outputs.get(), criterion=project.criteria.get(name="fluency"))
    stale = lead_client.get(url).json()
    assert stale["stale"] and stale["n_judgments_now"] == 19 and stale["criteria"] == stored["criteria"]
    page = Client()
    page.force_login(project.memberships.get(role=Membership.Role.LEAD).user)
    html = page.get(f"/projects/{project.id}/rater-models/").content.decode()
    assert "Stale:" in html and "19 judgments now" in html and "Recompute the rater models" in html
    with django_capture_on_commit_callbacks(execute=True):
        assert page.post(f"/projects/{project.id}/rater-models/recompute/").status_code == 302
    assert not lead_client.get(url).json()["stale"]
    # Quality control leaving a rater out makes it stale too, no judgment changing
    rater_exclude(project=project, rater=raters[2], reason="one point high")
    assert lead_client.get(url).json()["stale"]

    # Raters may neither read nor start it
    assert rater_client.post(f"{url}recompute/", {}, format="json").status_code == 403
    assert rater_client.get(url).status_code == 403
    assert lead_client.post(f"{url}recompute/", {"seed": -1}, format="json").status_code == 400
