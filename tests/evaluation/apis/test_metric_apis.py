"""Metric scores, computed metrics, correlations, calibrators and judges through the API."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Membership, Output
from core.models import Job
from evaluation.models import Judge, JudgeRating, MetricScore
from tests.annotation.factories import MembershipFactory, ProjectFactory
from tests.conftest import client_for
from tests.evaluation.factories import pairwise_study, rated_study

pytestmark = pytest.mark.django_db


def ndjson(*records) -> bytes:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records).encode()


def base(project):
    return f"/api/v1/projects/{project.id}"


def score_lines(project, name="m", fn=lambda o: 1.0 if o.system == "good" else 0.0):
    return [
        {"item": o.item.external_id, "system": o.system, "metric": name, "score": fn(o)}
        for o in Output.objects.filter(item__project=project).select_related("item")
    ]


def test_import_list_and_page_through_scores(project, lead_client):
    rated_study(project, n_items=4)
    response = lead_client.post(
        f"{base(project)}/metrics/import/", ndjson(*score_lines(project)), content_type="application/x-ndjson"
    )
    assert response.status_code == 201 and response.json() == {"imported": 8}
    listing = lead_client.get(f"{base(project)}/metrics/").json()
    assert listing["results"] == [{"name": "m", "source": "imported", "n_outputs": 8}]
    scores = lead_client.get(f"{base(project)}/metrics/scores/?page_size=3&system=good").json()
    assert scores["count"] == 4 and len(scores["results"]) == 3 and scores["next"]
    assert scores["results"][0]["value"] == 1.0


def test_bad_metric_lines_answer_400_with_line_numbers_and_store_nothing(project, lead_client):
    rated_study(project, n_items=2)
    good = score_lines(project)
    body = ndjson(
        good[0],
        {**good[1], "score": "high"},
        {**good[2], "item": "nope"},
        good[0],
        {**good[3], "metric": "calibrated:x"},
    )
    response = lead_client.post(f"{base(project)}/metrics/import/", body, content_type="application/x-ndjson")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [e["line"] for e in errors] == [2, 3, 4, 5]
    assert "must be a number" in errors[0]["error"] and "not in this project" in errors[1]["error"]
    assert "scored twice" in errors[2]["error"] and "kept for calibrators" in errors[3]["error"]
    assert not MetricScore.objects.exists()


def test_wide_csv_upload(project, lead_client):
    rated_study(project, n_items=2)
    rows = ["item,system,bleu,chrf"] + [
        f"{o.item.external_id},{o.system},0.5,"
        for o in Output.objects.filter(item__project=project).select_related("item")
    ]
    upload = SimpleUploadedFile("scores.csv", ("\n".join(rows) + "\n").encode())
    response = lead_client.post(f"{base(project)}/metrics/import/", {"file": upload}, format="multipart")
    assert response.status_code == 201 and response.json() == {"imported": 4}  # empty chrF cells: no score


def test_compute_job_scores_outputs_with_references(project, lead_client, django_capture_on_commit_callbacks):
    _, items = rated_study(project, n_items=2)
    for item in items:
        item.references = [f"good on {item.external_id}"]
        item.save()
    with django_capture_on_commit_callbacks(execute=True):
        response = lead_client.post(
            f"{base(project)}/metrics/compute/", {"metrics": ["rouge1", "length"]}, format="json"
        )
    assert response.status_code == 202
    job = lead_client.get(f"/api/v1/jobs/{response.json()['job_id']}/").json()
    assert job["state"] == "success" and job["result"] == {"metrics": ["rouge1", "length"], "outputs": 4}
    assert job["kind"] == "metrics_compute" and job["progress"] == 1.0
    # a reference equal to the output is left out: "good" has no reference left, "bad" is scored
    rouge = {m.output.system: m.value for m in MetricScore.objects.filter(name="rouge1").select_related("output")}
    assert rouge["good"] is None and rouge["bad"] == 0.75  # "bad on item-n" vs "good on item-n": 3 of 4
    assert MetricScore.objects.filter(name="length", value=5.0, source="computed").count() == 4  # good on item - n


def test_compute_refuses_unknown_metrics(project, lead_client):
    response = lead_client.post(f"{base(project)}/metrics/compute/", {"metrics": ["bertscore"]}, format="json")
    assert response.status_code == 400 and not Job.objects.exists()


def test_correlations_are_paginated_rows_with_level_labels(project, lead_client):
    rated_study(project, n_items=6, systems=("good", "mid", "bad"))
    order = {"good": 3.0, "mid": 2.0, "bad": 1.0}
    lead_client.post(
        f"{base(project)}/metrics/import/",
        ndjson(*score_lines(project, fn=lambda o: order[o.system] + len(o.item.external_id) / 100)),
        content_type="application/x-ndjson",
    )
    response = lead_client.get(f"{base(project)}/correlations/?n_resamples=100&page_size=5")
    body = response.json()
    assert body["count"] == 2 * 3 * 3 and len(body["results"]) == 5
    rows = lead_client.get(f"{base(project)}/correlations/?level=system&method=kendall&criterion=fluency").json()
    (row,) = rows["results"]
    assert row["label"] == "Kendall tau-b (system level)" and row["value"] == 1.0 and row["n"] == 3
    assert lead_client.get(f"{base(project)}/correlations/?metric=nope").status_code == 400


def test_calibrator_fit_list_and_apply(project, lead_client):
    rated_study(project, n_items=12, systems=("good", "mid", "bad"))
    order = {"good": 3.0, "mid": 2.0, "bad": 1.0}
    lines = score_lines(project, "a", lambda o: order[o.system]) + score_lines(project, "b", lambda o: o.id % 7)
    lead_client.post(f"{base(project)}/metrics/import/", ndjson(*lines), content_type="application/x-ndjson")
    response = lead_client.post(
        f"{base(project)}/calibrators/",
        {"name": "mix", "criterion": "fluency", "metrics": ["a", "b"]},
        format="json",
    )
    assert response.status_code == 201
    report = response.json()["report"]
    assert report["best_single"] == "a" and report["n_held_out"] > 0
    assert set(report["held_out"]) == {"pearson", "spearman", "kendall"}
    assert lead_client.get(f"{base(project)}/calibrators/").json()["count"] == 1
    applied = lead_client.post(f"{base(project)}/calibrators/{response.json()['id']}/apply/")
    assert applied.json() == {"scored": 36}
    bad = lead_client.post(
        f"{base(project)}/calibrators/",
        {"name": "x", "criterion": "fluency", "metrics": ["z"]},
        format="json",
    )
    assert bad.status_code == 400 and "not scored" in bad.json()["detail"]


def test_judges_import_from_metric_and_agreement(project, lead_client):
    rated_study(project, n_items=10, n_raters=3)
    lines = [
        {
            "judge": "gpt",
            "item": o.item.external_id,
            "system": o.system,
            "criterion": c,
            "value": 4.5 if o.system == "good" else 1.5,
        }
        for o in Output.objects.filter(item__project=project).select_related("item")
        for c in ("fluency",)
    ]
    response = lead_client.post(f"{base(project)}/judges/import/", ndjson(*lines), content_type="application/x-ndjson")
    assert response.json() == {"imported": 20}
    lead_client.post(
        f"{base(project)}/metrics/import/",
        ndjson(*score_lines(project, "len", lambda o: o.id)),
        content_type="application/x-ndjson",
    )
    made = lead_client.post(
        f"{base(project)}/judges/from-metric/",
        {"name": "len-judge", "metric": "len", "criterion": "fluency", "thresholds": [1e9, 2e9, 3e9, 4e9]},
        format="json",
    )
    assert made.status_code == 201 and made.json()["n_ratings"] == 20 and made.json()["kind"] == "metric"
    assert set(JudgeRating.objects.filter(judge__name="len-judge").values_list("value", flat=True)) == {1.0}
    judges = lead_client.get(f"{base(project)}/judges/").json()
    assert [j["name"] for j in judges["results"]] == ["gpt", "len-judge"]
    report = lead_client.get(f"{base(project)}/judges/agreement/?n_resamples=50&criterion=fluency").json()
    (fluency,) = report["criteria"]
    assert fluency["n_humans"] == 3 and fluency["human_human"]["alpha_interval"]["value"] > 0.5
    gpt = next(j for j in fluency["judges"] if j["judge"] == "gpt")
    assert gpt["rater_type"] == "model" and len(gpt["per_human"]) == 3
    assert gpt["judge_human"]["alpha_interval"]["value"] > 0.5


def test_judge_lines_off_the_scale_are_refused(project, lead_client):
    rated_study(project, n_items=1)
    o = Output.objects.filter(item__project=project).first()
    body = ndjson({"judge": "gpt", "item": o.item.external_id, "system": o.system, "criterion": "fluency", "value": 9})
    response = lead_client.post(f"{base(project)}/judges/import/", body, content_type="application/x-ndjson")
    assert response.status_code == 400 and "off the scale" in response.json()["errors"][0]["error"]
    assert not Judge.objects.exists()


def test_pairwise_judges_and_no_correlations(lead):
    project = ProjectFactory(task_type="pairwise", criteria=["overall"])
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    pairwise_study(project, n_items=9)
    client = client_for(lead)
    lines = [
        {"judge": "llm", "item": o.item.external_id, "criterion": "overall", "value": o.system}
        for o in Output.objects.filter(item__project=project, position=0).select_related("item")
    ]
    assert client.post(
        f"{base(project)}/judges/import/", ndjson(*lines), content_type="application/x-ndjson"
    ).json() == {"imported": 9}
    report = client.get(f"{base(project)}/judges/agreement/?n_resamples=20").json()
    assert report["unit"] == "item" and report["statistics"] == ["alpha_nominal"]
    response = client.get(f"{base(project)}/correlations/")
    assert response.status_code == 400 and "pairwise" in response.json()["detail"]


@pytest.mark.parametrize(
    "path", ["metrics/", "metrics/scores/", "correlations/", "calibrators/", "judges/", "judges/agreement/"]
)
def test_raters_get_403_and_outsiders_404(project, rater_client, path):
    assert rater_client.get(f"{base(project)}/{path}").status_code == 403
    assert client_for(ProjectFactory().created_by or _stranger()).get(f"{base(project)}/{path}").status_code == 404


def _stranger():
    from tests.annotation.factories import UserFactory

    return UserFactory(username="stranger")


def test_list_query_budgets(project, lead_client, django_assert_max_num_queries):
    rated_study(project, n_items=10)
    lead_client.post(
        f"{base(project)}/metrics/import/", ndjson(*score_lines(project)), content_type="application/x-ndjson"
    )
    for path in ("metrics/", "metrics/scores/", "judges/", "calibrators/"):
        with django_assert_max_num_queries(8):  # savepoints, project and role, count, page
            assert lead_client.get(f"{base(project)}/{path}").status_code == 200


def test_schema_documents_the_evaluation_api(lead_client, staff):
    schema = client_for(staff).get("/api/schema/?format=json").json()
    for path in ("results", "metrics/import", "correlations", "calibrators", "judges/agreement"):
        assert (
            f"/api/v1/projects/{{id}}/{path}/" in schema["paths"]
            or f"/api/v1/projects/{{pk}}/{path}/" in schema["paths"]
        ), path


def test_compute_takes_parameterised_rouge155_names_and_names_a_bad_one(
    project, lead_client, django_capture_on_commit_callbacks
):
    _, items = rated_study(project, n_items=2)
    for item in items:
        item.references = ["a reference text about the output"]
        item.save()
    with django_capture_on_commit_callbacks(execute=True):
        response = lead_client.post(
            f"{base(project)}/metrics/compute/",
            {"metrics": ["rouge155_7_r", "rouge155_SU9_f_stem_best"]},
            format="json",
        )
    assert response.status_code == 202
    assert set(MetricScore.objects.values_list("name", flat=True)) == {"rouge155_7_r", "rouge155_SU9_f_stem_best"}
    refused = lead_client.post(f"{base(project)}/metrics/compute/", {"metrics": ["rouge155_Q_f"]}, format="json")
    assert refused.status_code == 400 and "unknown metric 'rouge155_Q_f'" in json.dumps(refused.json())


def test_catalogue_gives_definition_inputs_and_availability(project, lead_client, settings, tmp_path, monkeypatch):
    import evaluation.metrics.meteor as meteor

    settings.NLTK_DATA_DIR = tmp_path  # WordNet not assembled there
    monkeypatch.setattr(meteor, "wordnet_missing", lambda source: ["index.sense"])
    rows = lead_client.get(f"{base(project)}/metrics/catalogue/?page_size=200").json()["results"]
    by_name = {r["name"]: r for r in rows}
    assert by_name["rouge155_W_r_stem"]["needs"] == ["references"]
    assert "ROUGE-1.5.5.pl (Lin 2004)" in by_name["rouge155_W_r_stem"]["description"]
    assert by_name["rouge155_W_r_stem"]["unavailable"] is None
    assert by_name["meteor"]["needs"] == ["references", "wordnet"]
    assert by_name["meteor"]["unavailable"] == (
        "meteor is unavailable because WordNet 3.0 is not installed (apt-get install wordnet-base wordnet-sense-index)"
    )
    assert by_name["length"]["needs"] == []
