"""Quality control in a project rating each assistant turn: gold answers per turn, degraded copies damaged turn by
turn, and the checks pairing each turn's answer with the gold or the original's same turn."""

import pytest

from annotation.models import Item, Judgment, Project
from annotation.selectors import assignment_screen
from annotation.selectors.quality import degraded_check, gold_accuracy
from annotation.services import degraded_controls_create, item_import, judgment_submit, project_create
from annotation.services.assignment import assignment_next_for_rater
from core.import_records import ImportRejected
from tests.annotation.factories import UserFactory
from tests.annotation.import_lines import jsonl
from tests.annotation.rating import add_raters

pytestmark = pytest.mark.django_db


def _conversation(k: int, system: str) -> list[dict]:
    return [
        {"role": "assistant", "text": f"{system} answers question {k} with seven careful and plain words."},
        {"role": "user", "text": f"And what about case {k}?"},
        {"role": "assistant", "text": f"{system} explains case {k} in a second long and patient reply."},
    ]


def _line(k: int, gold=None) -> dict:
    line = {
        "external_id": f"c{k}",
        "input": [{"role": "user", "text": f"Question {k}?"}],
        "outputs": [{"system": s, "turns": _conversation(k, s)} for s in ("a", "b")],
    }
    return line | ({"gold": gold} if gold is not None else {})


def per_turn_project(**fields) -> Project:
    return project_create(
        created_by=UserFactory(username="lead-turns"),
        name="turns",
        task_type="likert",
        criteria=[{"name": "helpful", "scale_min": 1, "scale_max": 5}],
        rating_unit="turn",
        randomise_output_order=False,
        **fields,
    )


def _answer(rater, assignment, points: dict[tuple[str, int], int]) -> None:
    """Answers every rated turn: ``points`` by (system, turn), 3 where not given."""
    screen = assignment_screen(assignment)
    systems = [o.system for o in assignment.item.outputs.order_by("position")]
    values = [
        {
            "criterion": "helpful",
            "position": o["position"],
            "turn": t,
            "value": points.get((systems[(assignment.shown_order or [0, 1])[o["position"]]], t), 3),
        }
        for o in screen["item"]["outputs"]
        for t in o["rated_turns"]
    ]
    judgment_submit(rater=rater, assignment_id=assignment.pk, values=values)


def test_gold_answers_per_turn_are_checked_against_the_outputs_assistant_turns():
    project = per_turn_project()
    assert item_import(project=project, stream=jsonl(_line(1, {"helpful": {"a": {"0": 5, "2": 2}, "b": 4}}))) == 1
    assert Item.objects.get().gold == {"helpful": {"a": {"0": 5, "2": 2}, "b": 4}}
    with pytest.raises(ImportRejected) as refused:
        item_import(project=project, stream=jsonl(_line(2, {"helpful": {"a": {"1": 5}}})))
    assert "gold.helpful.a: turn 1 is not an assistant turn of the output; its assistant turns are 0, 2" in str(
        refused.value
    )
    whole = project_create(
        created_by=UserFactory(username="lead-whole"),
        name="whole",
        task_type="likert",
        criteria=[{"name": "helpful", "scale_min": 1, "scale_max": 5}],
    )
    with pytest.raises(ImportRejected) as refused:
        item_import(project=whole, stream=jsonl(_line(3, {"helpful": {"a": {"0": 5}}})))
    assert "this project rates whole outputs; give one point, not one per turn" in str(refused.value)


def _answer_all(project, rater, points_of) -> None:
    """The rater's whole session; ``points_of(item)`` gives the points by (system, turn) for an item's screen."""
    while (assignment := assignment_next_for_rater(project_id=project.pk, rater=rater)) is not None:
        _answer(rater, assignment, points_of(assignment.item))


def test_gold_accuracy_counts_each_turns_first_answer_against_its_gold():
    project = per_turn_project(gold_rate=0.5)
    item_import(project=project, stream=jsonl(_line(1, {"helpful": {"a": {"0": 5, "2": 2}, "b": 4}}), _line(2)))
    (rater,) = add_raters(project)
    # a: turn 0 right, turn 2 wrong; b (a point for the whole output holds for each turn): turn 0 right, 2 wrong
    gold_points = {("a", 0): 5, ("a", 2): 4, ("b", 0): 4, ("b", 2): 1}
    _answer_all(project, rater, lambda item: gold_points if item.gold else {})
    accuracy = gold_accuracy(project)[rater.pk]
    assert (accuracy.n, accuracy.correct, accuracy.n_revised) == (4, 2, 0)


def test_degraded_copies_damage_each_assistant_turn_and_keep_the_transcript():
    project = per_turn_project(gold_rate=0.3)
    item_import(project=project, stream=jsonl(*(_line(k) for k in range(6))))
    (copy,) = degraded_controls_create(project=project, n=1, seed=3, methods=["truncate"])
    original = copy.degraded_from
    for output, source in zip(copy.outputs.order_by("position"), original.outputs.order_by("position"), strict=True):
        assert [t["role"] for t in output.turns] == [t["role"] for t in source.turns]
        assert output.turns[1] == source.turns[1]  # the user's turn as it was
        assert all(output.turns[k]["text"] != source.turns[k]["text"] for k in (0, 2))
        assert output.text.startswith("assistant: ") and "\n\nuser: " in output.text

    # Given a rater who scores the copy's turns below the original's same turns (and the rest in between),
    (rater,) = add_raters(project)
    every_turn = [(s, t) for s in "ab" for t in (0, 2)]
    _answer_all(
        project,
        rater,
        lambda item: dict.fromkeys(every_turn, 5 if item == original else 1 if item == copy else 3),
    )
    assert Judgment.objects.filter(item=copy, turn__isnull=False).count() == 4
    # then the check pairs every turn of the copy with the same turn of its original.
    check = degraded_check(project)[rater.pk]
    assert check.n_controls == 1 and len(check.degraded) == len(check.originals) == 4
    assert max(check.degraded) < min(check.originals)
