"""The evaluation app's lead actions in the audit log: metric imports and runs, calibrators, judges, through
the API and the commands; a refused action leaves no entry."""

import io
import json

import pytest
from django.core.management import call_command

from annotation.models import Output
from audit.models import ACTIONS, AuditEntry
from tests.evaluation.factories import rated_study

pytestmark = pytest.mark.django_db


def entry(action, project) -> AuditEntry:
    (found,) = AuditEntry.objects.filter(action=action, project=project)
    assert found.action in ACTIONS
    return found


def ndjson(*records) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def scores(project, name, fn):
    return [
        {"item": o.item.external_id, "system": o.system, "metric": name, "score": fn(o)}
        for o in Output.objects.filter(item__project=project).select_related("item")
    ]


@pytest.fixture
def study(project):
    rated_study(project, n_items=12, systems=("good", "mid", "bad"))
    AuditEntry.objects.all().delete()
    return project


def base(project) -> str:
    return f"/api/v1/projects/{project.pk}"


def test_metric_import_calibrator_fit_and_apply(study, lead, lead_client):
    order = {"good": 3.0, "mid": 2.0, "bad": 1.0}
    body = ndjson(*scores(study, "a", lambda o: order[o.system]), *scores(study, "b", lambda o: o.id % 7))
    assert (
        lead_client.post(f"{base(study)}/metrics/import/", body, content_type="application/x-ndjson").status_code == 201
    )
    imported = entry("metrics.import", study)
    assert (imported.actor, imported.detail) == (lead, {"imported": 72, "metrics": ["a", "b"], "format": "jsonl"})
    bad = lead_client.post(
        f"{base(study)}/metrics/import/",
        ndjson({"item": "nope", "system": "good", "metric": "a", "score": 1}),
        content_type="application/x-ndjson",
    )
    assert bad.status_code == 400 and AuditEntry.objects.filter(action="metrics.import").count() == 1

    fitted = lead_client.post(
        f"{base(study)}/calibrators/", {"name": "mix", "criterion": "fluency", "metrics": ["a", "b"]}, format="json"
    )
    assert fitted.status_code == 201
    fit = entry("calibrator.fit", study)
    assert (fit.actor, fit.target, fit.detail) == (
        lead,
        "mix",
        {"criterion": "fluency", "metrics": ["a", "b"], "seed": 0},
    )
    lead_client.post(f"{base(study)}/calibrators/{fitted.json()['id']}/apply/")
    applied = entry("calibrator.apply", study)
    assert (applied.actor, applied.target, applied.detail) == (lead, "mix", {"scored": 36, "metric": "calibrated:mix"})


def test_metric_compute_by_api_and_command(study, lead, lead_client):
    started = lead_client.post(f"{base(study)}/metrics/compute/", {"metrics": ["length"]}, format="json")
    found = entry("metrics.compute", study)
    assert (found.actor, found.detail) == (lead, {"job_id": started.json()["job_id"], "metrics": ["length"]})
    call_command("compute_metrics", str(study.pk), "--metric", "length", "--no-progress", stdout=io.StringIO())
    by_command = AuditEntry.objects.filter(action="metrics.compute").order_by("-id").first()
    assert (by_command.actor_name, by_command.detail) == (
        "manage.py compute_metrics",
        {"metrics": ["length"], "outputs": 36},
    )


def test_judge_import_and_judge_from_metric(study, lead, lead_client, tmp_path):
    lines = [
        {"judge": "gpt", "item": o.item.external_id, "system": o.system, "criterion": "fluency", "value": 4.0}
        for o in Output.objects.filter(item__project=study).select_related("item")
    ]
    assert (
        lead_client.post(
            f"{base(study)}/judges/import/", ndjson(*lines), content_type="application/x-ndjson"
        ).status_code
        == 201
    )
    found = entry("judges.import", study)
    assert (found.actor, found.detail) == (lead, {"imported": 36, "judges": ["gpt"]})

    path = tmp_path / "claude.jsonl"
    path.write_bytes(ndjson(*({**line, "judge": "claude"} for line in lines)))
    call_command("import_judge_ratings", str(study.pk), str(path), "--no-progress", stdout=io.StringIO())
    by_command = AuditEntry.objects.filter(action="judges.import").order_by("-id").first()
    assert (by_command.actor_name, by_command.target) == ("manage.py import_judge_ratings", "claude.jsonl")

    lead_client.post(
        f"{base(study)}/metrics/import/",
        ndjson(*scores(study, "len", lambda o: o.id)),
        content_type="application/x-ndjson",
    )
    made = lead_client.post(
        f"{base(study)}/judges/from-metric/",
        {"name": "len-judge", "metric": "len", "criterion": "fluency", "thresholds": [1, 2, 3, 4]},
        format="json",
    )
    assert made.status_code == 201
    judge = entry("judge.from_metric", study)
    assert (judge.actor, judge.target, judge.detail) == (
        lead,
        "len-judge",
        {"metric": "len", "criterion": "fluency", "thresholds": [1.0, 2.0, 3.0, 4.0]},
    )


def test_metric_scores_command(study, tmp_path):
    path = tmp_path / "scores.jsonl"
    path.write_bytes(ndjson(*scores(study, "m", lambda o: 0.5)))
    call_command("import_metric_scores", str(study.pk), str(path), "--no-progress", stdout=io.StringIO())
    found = entry("metrics.import", study)
    assert (found.actor, found.actor_name, found.target, found.detail["imported"]) == (
        None,
        "manage.py import_metric_scores",
        "scores.jsonl",
        36,
    )
