"""Judge ratings are checked like human judgments: on a RankME project with a modulus, any positive score
relative to it (no upper bound), on one without, the criterion's range."""

import pytest

from core.import_records import ImportRejected
from evaluation.models import JudgeRating
from evaluation.services import judge_rating_import
from tests.annotation.factories import ItemFactory, ProjectFactory
from tests.evaluation.datasets.loaders import lines

pytestmark = pytest.mark.django_db


def _ratings(project, *values):
    item = ItemFactory(project=project, systems=["bart", "pegasus"], references=["the reference"])
    return lines(
        {"judge": "gpt", "item": item.external_id, "system": "bart", "criterion": "quality", "value": v} for v in values
    )


def test_a_modulus_project_takes_judge_scores_past_the_slider_range():
    project = ProjectFactory(task_type="rankme", criteria=["quality"], rankme_modulus=100)
    assert judge_rating_import(project=project, stream=_ratings(project, 250.0)) == 1
    assert JudgeRating.objects.get().value == 250.0


@pytest.mark.parametrize(("modulus", "value"), [(100, 0), (100, -3), (None, 250)])
def test_scores_outside_what_the_project_allows_are_refused(modulus, value):
    project = ProjectFactory(task_type="rankme", criteria=["quality"], rankme_modulus=modulus)
    with pytest.raises(ImportRejected):
        judge_rating_import(project=project, stream=_ratings(project, value))
    assert not JudgeRating.objects.exists()


def test_an_mqm_project_takes_a_judges_penalty_unbounded_and_refuses_what_is_not_a_number():
    project = ProjectFactory(task_type="mqm", criteria=["quality"])
    assert judge_rating_import(project=project, stream=_ratings(project, 7.5)) == 1
    with pytest.raises(ImportRejected):
        judge_rating_import(project=project, stream=_ratings(project, "many"))
    assert list(JudgeRating.objects.values_list("value", flat=True)) == [7.5]
