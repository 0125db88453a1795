"""project_create: the RankME modulus setting (rankme only, positive, finite) and its database guard."""

import math

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from annotation.models import Project
from annotation.services import project_create
from tests.annotation.factories import UserFactory

pytestmark = pytest.mark.django_db


def create(**kw):
    spec = {"name": "p", "task_type": "rankme", "criteria": [{"name": "quality"}], **kw}
    return project_create(created_by=UserFactory(username="lead-of-p"), **spec)


def test_a_rankme_project_keeps_its_modulus_and_defaults_to_none():
    assert create(rankme_modulus=100).rankme_modulus == 100.0
    assert create(name="p2").rankme_modulus is None


@pytest.mark.parametrize(
    ("task_type", "criteria"),
    [
        ("likert", [{"name": "fluency", "scale_min": 1, "scale_max": 5}]),
        ("pairwise", [{"name": "overall"}]),
    ],
)
def test_only_rankme_projects_take_a_modulus(task_type, criteria):
    with pytest.raises(ValidationError) as caught:
        create(task_type=task_type, criteria=criteria, rankme_modulus=100)
    assert (
        f"only a rankme project takes a modulus; this one is '{task_type}'"
        in caught.value.message_dict["rankme_modulus"][0]
    )
    assert not Project.objects.exists()


@pytest.mark.parametrize("modulus", [0, -1, math.nan, math.inf])
def test_the_modulus_must_be_positive_and_finite(modulus):
    with pytest.raises(ValidationError) as caught:
        create(rankme_modulus=modulus)
    assert "must be a positive finite number" in caught.value.message_dict["rankme_modulus"][0]
    assert not Project.objects.exists()


def test_the_database_refuses_a_non_positive_modulus_or_one_on_another_task_type():
    project = create(rankme_modulus=100)
    with pytest.raises(IntegrityError, match="project_rankme_modulus_positive"), transaction.atomic():
        Project.objects.filter(pk=project.pk).update(rankme_modulus=0)
    with pytest.raises(IntegrityError, match="project_rankme_modulus_only_rankme"), transaction.atomic():
        Project.objects.filter(pk=project.pk).update(task_type="likert")
