"""The demo sets up a lead, raters and one generated project per task type, idempotently."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotation.models import Item, Project
from annotation.services.demo import demo_items

pytestmark = pytest.mark.django_db


def test_demo_creates_one_project_per_task_type_with_generated_items(capsys, settings):
    settings.DEBUG = True  # as make run sets it
    call_command("demo", "--no-serve")
    call_command("demo", "--no-serve")
    out = capsys.readouterr().out
    assert "http://127.0.0.1:8000/" in out and "lead / concord-demo-lead" in out
    assert sorted(Project.objects.values_list("task_type", flat=True)) == ["likert", "pairwise", "rankme"]
    for project in Project.objects.all():
        assert Item.objects.filter(project=project).count() == 24
        assert project.memberships.filter(role="rater").count() == 3


def test_demo_refuses_to_run_when_debug_is_off(settings):
    # It creates a staff account with a published password: never on a deployment.
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DJANGO_DEBUG=true"):
        call_command("demo", "--no-serve")
    assert not get_user_model().objects.exists() and not Project.objects.exists()


def test_demo_items_are_seeded_and_fit_each_task_type():
    assert demo_items("pairwise", 5, seed=1) == demo_items("pairwise", 5, seed=1)
    assert {len(line["outputs"]) for line in demo_items("pairwise", 5, seed=1)} == {2}
    assert {len(line["outputs"]) for line in demo_items("rankme", 5, seed=1)} == {3}
