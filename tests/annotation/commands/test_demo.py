"""The demo sets up a lead, raters and one generated project per task type, idempotently."""
import pytest
from django.core.management import call_command

from annotation.models import Item, Project
from annotation.services.demo import demo_items

pytestmark = pytest.mark.django_db


def test_demo_creates_one_project_per_task_type_with_generated_items(capsys):
    call_command("demo", "--no-serve")
    call_command("demo", "--no-serve")
    out = capsys.readouterr().out
    assert "http://127.0.0.1:8000/" in out and "lead / concord-demo-lead" in out
    assert sorted(Project.objects.values_list("task_type", flat=True)) == ["likert", "pairwise", "rankme"]
    for project in Project.objects.all():
        assert Item.objects.filter(project=project).count() == 24
        assert project.memberships.filter(role="rater").count() == 3


def test_demo_items_are_seeded_and_fit_each_task_type():
    assert demo_items("pairwise", 5, seed=1) == demo_items("pairwise", 5, seed=1)
    assert {len(line["outputs"]) for line in demo_items("pairwise", 5, seed=1)} == {2}
    assert {len(line["outputs"]) for line in demo_items("rankme", 5, seed=1)} == {3}
