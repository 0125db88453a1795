"""The default metric set is what this installation can compute; a metric asked for by name is not dropped."""

import dataclasses

import pytest

from evaluation.metrics import text
from evaluation.services import DEFAULT_METRICS, metric_names_check


@pytest.fixture
def no_wordnet(monkeypatch):
    meteor = dataclasses.replace(
        text.REGISTRY["meteor"], unavailable=lambda resources: "meteor is unavailable because test"
    )
    monkeypatch.setitem(text.REGISTRY, "meteor", meteor)


def test_defaults_leave_out_a_metric_this_installation_cannot_compute(no_wordnet):
    names = metric_names_check(None)
    assert "meteor" not in names
    assert names == [name for name in DEFAULT_METRICS if name != "meteor"]


def test_a_metric_asked_for_by_name_stays_asked_for(no_wordnet):
    assert metric_names_check(["meteor", "bleu"]) == ["meteor", "bleu"]
