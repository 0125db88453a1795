"""Migration 0003: computed "meteor" scores (no synonyms) and what was built on them move to
"meteor_exact_stem"; imported "meteor" scores keep their name; backwards restores them."""

import importlib

import pytest
from django.apps import apps

from annotation.models import Criterion
from evaluation.models import Calibrator, Judge, MetricScore
from tests.annotation.factories import ItemFactory, ProjectFactory

migration = importlib.import_module("evaluation.migrations.0003_meteor_exact_stem_rename")


@pytest.mark.django_db
def test_computed_meteor_moves_to_meteor_exact_stem_and_back():
    # given a project with computed meteor scores, a calibrator and a metric judge on them, and a
    # project whose meteor scores were imported
    computed, imported = ProjectFactory(), ProjectFactory()
    for project, source in ((computed, "computed"), (imported, "imported")):
        output = ItemFactory(project=project).outputs.first()
        MetricScore.objects.create(project=project, output=output, name="meteor", value=0.4, source=source)
    criterion = Criterion.objects.create(project=computed, name="overall", scale_min=1, scale_max=5)
    calibrator = Calibrator.objects.create(
        project=computed, name="c", criterion=criterion, params={"features": ["bleu", "meteor"]}
    )
    judge = Judge.objects.create(project=computed, name="j", kind="metric", config={"metric": "meteor"})

    # when the migration runs
    migration.forwards(apps, None)

    # then only the computed scores and their users are renamed
    assert set(MetricScore.objects.values_list("project_id", "name")) == {
        (computed.id, "meteor_exact_stem"),
        (imported.id, "meteor"),
    }
    calibrator.refresh_from_db()
    judge.refresh_from_db()
    assert calibrator.params["features"] == ["bleu", "meteor_exact_stem"]
    assert judge.config["metric"] == "meteor_exact_stem"

    # and backwards, after a synonym METEOR was computed, restores the old rows
    MetricScore.objects.create(
        project=computed, output=computed.items.first().outputs.first(), name="meteor", value=0.6, source="computed"
    )
    migration.backwards(apps, None)
    assert sorted(MetricScore.objects.values_list("project_id", "name", "value")) == sorted(
        [(computed.id, "meteor", 0.4), (imported.id, "meteor", 0.4)]
    )
    calibrator.refresh_from_db()
    assert calibrator.params["features"] == ["bleu", "meteor"]
