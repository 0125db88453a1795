"""The values of one screen's form (a rater's or an adjudicator's) checked and coded by the task type."""

from typing import NamedTuple

from django.core.exceptions import ValidationError

from annotation.conversations import assistant_turns
from annotation.models import Criterion, Item, Output, Project
from annotation.selectors.rater_loop import proposals_of
from annotation.task_types import REGISTRY, CriterionScale, ScreenTexts, Span, TaskTypeError


class ScreenRow(NamedTuple):
    """One coded value of a screen; ``turn`` the assistant turn judged in a per-turn project (None: the output)."""

    output: Output
    criterion: Criterion
    value: float
    label: str
    spans: tuple[Span, ...]
    turn: int | None = None


def screen_texts(item: Item, outputs: list[tuple[int, int, str, str]]) -> ScreenTexts:
    """What a type that reads texts checks an answer against: the item's input, and per system its output's
    text and the model's proposed spans (``outputs`` as rater_loop.outputs_of gives them)."""
    proposals = proposals_of(item.pk)
    return ScreenTexts(
        item.input,
        {system: text for _, _, system, text in outputs},
        {system: proposals.get(pk, ()) for pk, _, system, _ in outputs},
    )


def rated_turns_of(project: Project, outputs: list[tuple[int, int, str, str, list[dict] | None]]):
    """What a per-turn project asks each criterion of, per system (``rated_turns`` of screen_values_code), from the
    item's outputs as rater_loop.screen_outputs_of gives them; None for a project rating whole outputs."""
    if project.rating_unit == Project.RatingUnit.CONVERSATION:
        return None
    whole = (None,) if project.rating_unit == Project.RatingUnit.BOTH else ()
    return {system: (*whole, *assistant_turns(turns)) for _, _, system, _, turns in outputs}


def screen_values_code(
    *,
    project: Project,
    criteria: list[Criterion],
    outputs: list[Output],
    shown: list[str],
    values: list[dict],
    texts: ScreenTexts | None = None,
    rated_turns: dict[str, tuple[int | None, ...]] | None = None,
) -> list[ScreenRow]:
    """(output, criterion, value, label, error spans) per value of a screen whose ``outputs`` (imported order)
    were shown as the systems ``shown``; every criterion (× output) needs one answer, or counts as the type's
    ``unanswered_value``, and the type checks each criterion's answers together. ``texts``: the screen's texts,
    for the types that read them. ``rated_turns`` (a per-turn project): per system, what each criterion is asked
    of, an assistant turn's index or None for the whole output; a value then names its ``turn``. Raises
    ValidationError listing every problem."""
    task_type = REGISTRY[project.task_type]
    criteria = {c.name: c for c in criteria}
    systems = [o.system for o in outputs]
    by_system = {o.system: o for o in outputs}
    positions = range(len(shown)) if task_type.per_output else [None]

    errors, rows, seen = [], [], {}
    for i, entry in enumerate(values):
        if not isinstance(entry, dict):
            errors.append(f"values[{i}]: must be an object {{criterion, position, value}}, got {entry!r}")
            continue
        name = entry.get("criterion")
        position = entry.get("position") if task_type.per_output else None
        turn = entry.get("turn")
        where = (
            f"values[{i}] (criterion {name!r}"
            + (f", position {position!r}" if task_type.per_output else "")
            + (f", turn {turn!r})" if turn is not None else ")")
        )
        criterion = criteria.get(name)
        if criterion is None:
            errors.append(f"{where}: unknown criterion; the criteria are {', '.join(map(repr, criteria))}")
            continue
        try:
            system, value = task_type.screen_value(entry.get("value"), shown, position)
            scale = CriterionScale(criterion.name, criterion.scale_min, criterion.scale_max, project.rankme_modulus)
            coded = task_type.code_answer(value, scale, systems, system, config=project.task_config, texts=texts)
            _check_turn(turn, rated_turns, coded.system)
        except TaskTypeError as exc:
            errors.append(f"{where}: {exc}")
            # Answered, if badly: do not also report the slot as missing.
            slot = 0 if position is None and len(shown) == 1 and task_type.per_output else position
            seen.setdefault((name, slot, turn if isinstance(turn, int) else None), i)
            continue
        key = (name, shown.index(system) if system is not None else None, turn)
        if key in seen:
            if task_type.unanswered_value is not None and key[1] is not None:  # picks among outputs (best–worst)
                errors.append(
                    f"criterion {name!r}: output {key[1] + 1} (as shown) is picked as both "
                    f"{values[seen[key]].get('value')!r} and {entry.get('value')!r}; pick two outputs"
                )
            else:
                errors.append(f"{where}: answered twice (first in values[{seen[key]}])")
            continue
        seen[key] = i
        rows.append(ScreenRow(by_system[coded.system], criterion, coded.value, coded.label, coded.spans, turn))
    for name, criterion in criteria.items():
        for position, turn in _slots(positions, shown, rated_turns):
            if (name, position, turn) in seen:
                continue
            if task_type.unanswered_value is not None:
                scale = CriterionScale(criterion.name, criterion.scale_min, criterion.scale_max, project.rankme_modulus)
                coded = task_type.code_answer(
                    task_type.unanswered_value, scale, systems, shown[position], config=project.task_config, texts=texts
                )
                rows.append(ScreenRow(by_system[coded.system], criterion, coded.value, coded.label, coded.spans))
                continue
            errors.append(
                f"criterion {name!r}"
                + (f", position {position}" if position is not None else "")
                + (f", turn {turn}" if turn is not None else "")
                + ": no value given; every criterion needs an answer"
                + (" for every output" if position is not None and rated_turns is None else "")
                + (" for every assistant turn" if turn is not None else "")
            )
        if not errors:
            try:
                task_type.check_screen([row.value for row in rows if row.criterion is criterion])
            except TaskTypeError as exc:
                errors.append(f"criterion {name!r}: {exc}")
    if errors:
        raise ValidationError({"values": errors})
    return rows


def _check_turn(turn, rated_turns: dict[str, tuple[int | None, ...]] | None, system: str | None) -> None:
    """Raises TaskTypeError unless ``turn`` is a slot the output of ``system`` asks for."""
    if rated_turns is None or system is None:
        if turn is not None:
            raise TaskTypeError("turn: this project rates whole outputs; leave turn out")
        return
    slots = rated_turns[system]
    if turn in slots:
        return
    assistant = [t for t in slots if t is not None]
    asked = "its assistant turns " + ", ".join(map(str, assistant))
    if turn is None:
        raise TaskTypeError(f"turn is missing: this project rates each assistant turn; say which ({asked})")
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise TaskTypeError(f"turn must be the index (from 0) of an assistant turn, got {turn!r}")
    raise TaskTypeError(f"turn {turn} is not an assistant turn of this output; the turns rated are {asked}")


def _slots(positions, shown: list[str], rated_turns: dict[str, tuple[int | None, ...]] | None):
    """(display position, turn) of every answer a criterion needs."""
    for position in positions:
        if rated_turns is None or position is None:
            yield position, None
        else:
            for turn in rated_turns[shown[position]]:
                yield position, turn
