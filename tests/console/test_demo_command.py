"""The demo sets up a lead, raters and one generated project per task type with a study in progress:
three weeks of judgments from simulated raters of different quality, agreement computed; idempotently."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db.models import F

from agreement.models import AgreementSnapshot
from annotation.models import Item, Judgment, Project
from annotation.services.demo import demo_items
from annotation.task_types import REGISTRY

pytestmark = pytest.mark.django_db


def agreement_with_others(project, username: str) -> float:
    """How often the rater's current value equals another rater's on the same item, criterion and output."""
    rows = list(
        Judgment.objects.filter(project=project, is_current=True).values_list(
            "rater__username", "item_id", "criterion_id", "output_id", "value"
        )
    )
    theirs = [r for r in rows if r[0] == username]
    same = total = 0
    for _, item, criterion, output, value in theirs:
        for other in rows:
            if other[0] != username and other[1:4] == (item, criterion, output):
                total += 1
                same += other[4] == value
    return same / total


# Fresh id sequences, as `make run` has: the simulated scores and the raters' orders follow the items' ids, and with
# the ids of a used database a chat demo's raters once judged every slot (CI saw 64 of 64).
@pytest.mark.django_db(transaction=True, reset_sequences=True)
def test_demo_is_a_study_in_progress(capsys, settings):
    settings.DEBUG = True  # as make run sets it
    call_command("demo", "--no-serve")
    n_judgments = Judgment.objects.count()
    call_command("demo", "--no-serve")
    out = capsys.readouterr().out
    assert "http://127.0.0.1:8000/" in out and "lead / concord-demo-lead" in out and "rater4 is the careless" in out
    assert Judgment.objects.count() == n_judgments  # the second run changed nothing
    chats = [t.setup.demo.conversation_name for t in REGISTRY.values() if t.setup.demo.conversation_name]
    assert chats, "some task type has a demo study of conversations"
    assert sorted(Project.objects.exclude(name__in=chats).values_list("task_type", flat=True)) == sorted(REGISTRY)
    for chat in Project.objects.filter(name__in=chats):  # its items are conversations, in three languages
        assert not chat.items.filter(turns__isnull=True).exists()
        assert set(chat.items.values_list("subgroup", flat=True)) == {"en", "fr", "ar"}
    # a chat demo rates every assistant turn and the whole conversation, with agreement of each kind
    per_turn = Project.objects.get(name__in=chats, rating_unit="both")
    judged = Judgment.objects.filter(project=per_turn)
    assert judged.filter(turn__isnull=True).exists() and judged.filter(turn__isnull=False).exists()
    assert set(AgreementSnapshot.objects.filter(project=per_turn).values_list("rating_unit", flat=True)) == {
        "conversation",
        "turn",
    }
    instructions = set()
    for project in Project.objects.all():
        instructions.add(project.instructions)
        assert Item.objects.filter(project=project).count() == 40
        assert project.memberships.filter(role="rater").count() == 4
        items = Item.objects.filter(project=project)
        assert items.filter(n_judged__gt=0).exists() and items.filter(n_judged__lt=F("n_target")).exists()
        weeks = {
            d.isocalendar()[:2] for d in Judgment.objects.filter(project=project).values_list("submitted_at", flat=True)
        }
        assert len(weeks) >= 3
        assert set(Judgment.objects.filter(project=project).values_list("rater__username", flat=True)) == {
            "rater1",
            "rater2",
            "rater3",
            "rater4",
        }
        assert AgreementSnapshot.objects.filter(project=project).exists()
    assert len(instructions) == len(REGISTRY) + len(chats)  # each task type explains its own screen
    likert = Project.objects.exclude(name__in=chats).get(task_type="likert")
    assert agreement_with_others(likert, "rater4") < agreement_with_others(likert, "rater1")


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
    line = demo_items("likert", 1, seed=3, systems=["extractive", "baseline"])[0]
    first, second = (o["text"] for o in line["outputs"])
    assert first in line["input"] and second not in line["input"]  # faithful lead sentence vs a garbled one
