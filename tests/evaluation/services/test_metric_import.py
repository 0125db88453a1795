"""Metric import service: formats, replacement, and the all-or-nothing rule."""

import io

import pytest

from annotation.models import Output
from core.import_records import ImportRejected
from evaluation.models import MetricScore
from evaluation.services import metric_score_import
from tests.evaluation.datasets.loaders import lines
from tests.evaluation.factories import rated_study

pytestmark = pytest.mark.django_db


def outputs(project):
    return list(Output.objects.filter(item__project=project).select_related("item").order_by("id"))


def test_wide_jsonl_and_replacement(project):
    rated_study(project, n_items=2)
    first = outputs(project)[0]
    line = {"item": first.item.external_id, "system": first.system, "scores": {"a": 1, "b": None}}
    assert metric_score_import(project=project, stream=lines([line])) == 2
    assert MetricScore.objects.get(output=first, name="b").value is None
    metric_score_import(project=project, stream=lines([{**line, "scores": {"a": 2}}]))
    assert MetricScore.objects.get(output=first, name="a").value == 2.0
    assert MetricScore.objects.filter(output=first).count() == 2  # b untouched


def test_long_csv(project):
    rated_study(project, n_items=1)
    o = outputs(project)[0]
    body = f"item,system,metric,score\n{o.item.external_id},{o.system},bleu,0.25\n".encode()
    assert metric_score_import(project=project, stream=io.BytesIO(body), fmt="csv") == 1


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"item": "?", "system": "good", "metric": "m", "score": 1}, "not in this project"),
        ({"system": "good", "metric": "m", "score": 1}, "item is missing"),
        ({"item": "ITEM", "system": "nope", "metric": "m", "score": 1}, "has no output on item"),
        ({"item": "ITEM", "system": "good", "metric": "", "score": 1}, "non-empty name"),
        ({"item": "ITEM", "system": "good", "metric": "m", "score": float("inf")}, "finite"),
        ({"item": "ITEM", "system": "good", "metric": "m", "score": True}, "must be a number"),
        ({"item": "ITEM", "system": "good", "value": 1}, "either item, system, metric, score"),
    ],
)
def test_each_bad_line_is_reported(project, record, message):
    rated_study(project, n_items=1)
    item = outputs(project)[0].item.external_id
    record = {k: (item if v == "ITEM" else v) for k, v in record.items()}
    body = io.BytesIO((__import__("json").dumps(record) + "\n").encode().replace(b"Infinity", b"1e999"))
    with pytest.raises(ImportRejected) as info:
        metric_score_import(project=project, stream=body)
    assert message in info.value.report.errors[0][1]
    assert not MetricScore.objects.exists()


def test_empty_file(project):
    with pytest.raises(ImportRejected, match="no scores"):
        metric_score_import(project=project, stream=io.BytesIO(b""))
