"""metrics_compute's rounds: the whole-set metrics over every output in one round first, the others in batches,
with progress after each round counted in output-metric scores."""

import importlib

import pytest

from evaluation.models import MetricScore
from evaluation.services import metrics_compute
from evaluation.services.metric_inputs import metric_input_upload
from tests.annotation.factories import ProjectFactory
from tests.evaluation.factories import rated_study

pytestmark = pytest.mark.django_db
# the module, not the function evaluation.services exports under the same name
module = importlib.import_module("evaluation.services.metrics_compute")


def test_whole_set_metrics_come_first_then_batches_each_reporting_progress(settings, tmp_path, monkeypatch):
    settings.MEDIA_ROOT = tmp_path / "media"
    project = ProjectFactory(task_type="likert", criteria=["fluency"])
    rated_study(project, n_items=4)  # 8 outputs
    metric_input_upload(project=project, kind="training_corpus", data=b"good on item\nbad on item\n")
    monkeypatch.setattr(module, "BATCH_SIZE", 3)
    rounds, progress = [], []
    real = module.compute_metrics

    def recording(outputs, references, names, *args, **kwargs):
        rounds.append((len(outputs), list(names)))
        return real(outputs, references, names, *args, **kwargs)

    monkeypatch.setattr(module, "compute_metrics", recording)

    metrics_compute(
        project=project, names=["length", "dialog_distinct1"], progress=lambda d, t: progress.append((d, t))
    )

    assert rounds == [(8, ["dialog_distinct1"]), (3, ["length"]), (3, ["length"]), (2, ["length"])]
    assert progress == [(8, 16), (11, 16), (14, 16), (16, 16)]
    assert MetricScore.objects.filter(project=project).count() == 16
