"""manage.py import_metric_scores, import_judge_ratings, compute_metrics and show_results."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Output
from evaluation.models import Judge, MetricScore
from tests.evaluation.factories import rated_study

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_import_compute_and_show(project, tmp_path):
    rated_study(project, n_items=5)
    outputs = Output.objects.filter(item__project=project).select_related("item")
    scores = tmp_path / "scores.jsonl"
    scores.write_text(
        "".join(
            json.dumps({"item": o.item.external_id, "system": o.system, "metric": "m", "score": float(o.id)}) + "\n"
            for o in outputs
        )
    )
    assert "Imported 10 scores" in run("import_metric_scores", str(project.id), str(scores), "--no-progress")
    judges = tmp_path / "judges.jsonl"
    judges.write_text(
        "".join(
            json.dumps(
                {
                    "judge": "llm",
                    "item": o.item.external_id,
                    "system": o.system,
                    "criterion": "fluency",
                    "value": 2,
                }
            )
            + "\n"
            for o in outputs
        )
    )
    assert "Imported 10 ratings" in run("import_judge_ratings", project.name, str(judges), "--no-progress")
    assert Judge.objects.filter(project=project, name="llm").exists()
    assert "Scored 10 outputs with length" in run(
        "compute_metrics", str(project.id), "--metric", "length", "--no-progress"
    )
    assert MetricScore.objects.filter(name="length").count() == 10
    shown = run("show_results", str(project.id), "--n-resamples", "100")
    assert "== fluency" in shown and "good" in shown and "95% CI" in shown
    assert "Metrics against humans: Kendall tau-b (system level)" in shown
    assert "Judges beside the humans" in shown and "llm" in shown


def test_bad_file_lists_lines_and_fails(project, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"item": "x", "system": "y", "metric": "m", "score": 1}\n')
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 bad line"):
        call_command(
            "import_metric_scores",
            str(project.id),
            str(bad),
            "--no-progress",
            stdout=io.StringIO(),
            stderr=err,
        )
    assert "bad.jsonl:1: item 'x' is not in this project" in err.getvalue()


def test_unknown_project():
    with pytest.raises(CommandError, match="no project"):
        run("show_results", "999999")
