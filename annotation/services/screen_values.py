"""The values of one screen's form (a rater's or an adjudicator's) checked and coded by the task type."""

from django.core.exceptions import ValidationError

from annotation.models import Criterion, Item, Output, Project
from annotation.selectors.rater_loop import proposals_of
from annotation.task_types import REGISTRY, CriterionScale, ScreenTexts, Span, TaskTypeError

ScreenRow = tuple[Output, Criterion, float, str, tuple[Span, ...]]


def screen_texts(item: Item, outputs: list[tuple[int, int, str, str]]) -> ScreenTexts:
    """What a type that reads texts checks an answer against: the item's input, and per system its output's
    text and the model's proposed spans (``outputs`` as rater_loop.outputs_of gives them)."""
    proposals = proposals_of(item.pk)
    return ScreenTexts(
        item.input,
        {system: text for _, _, system, text in outputs},
        {system: proposals.get(pk, ()) for pk, _, system, _ in outputs},
    )


def screen_values_code(
    *,
    project: Project,
    criteria: list[Criterion],
    outputs: list[Output],
    shown: list[str],
    values: list[dict],
    texts: ScreenTexts | None = None,
) -> list[ScreenRow]:
    """(output, criterion, value, label, error spans) per value of a screen whose ``outputs`` (imported order)
    were shown as the systems ``shown``; every criterion (× output) needs one answer, or counts as the type's
    ``unanswered_value``, and the type checks each criterion's answers together. ``texts``: the screen's texts,
    for the types that read them. Raises ValidationError listing every problem."""
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
        where = f"values[{i}] (criterion {name!r}" + (f", position {position!r})" if task_type.per_output else ")")
        criterion = criteria.get(name)
        if criterion is None:
            errors.append(f"{where}: unknown criterion; the criteria are {', '.join(map(repr, criteria))}")
            continue
        try:
            system, value = task_type.screen_value(entry.get("value"), shown, position)
            scale = CriterionScale(criterion.name, criterion.scale_min, criterion.scale_max, project.rankme_modulus)
            coded = task_type.code_answer(value, scale, systems, system, config=project.task_config, texts=texts)
        except TaskTypeError as exc:
            errors.append(f"{where}: {exc}")
            # Answered, if badly: do not also report the slot as missing.
            seen.setdefault((name, 0 if position is None and len(shown) == 1 and task_type.per_output else position), i)
            continue
        key = (name, shown.index(system) if system is not None else None)
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
        rows.append((by_system[coded.system], criterion, coded.value, coded.label, coded.spans))
    for name, criterion in criteria.items():
        for position in positions:
            if (name, position) in seen:
                continue
            if task_type.unanswered_value is not None:
                scale = CriterionScale(criterion.name, criterion.scale_min, criterion.scale_max, project.rankme_modulus)
                coded = task_type.code_answer(
                    task_type.unanswered_value, scale, systems, shown[position], config=project.task_config, texts=texts
                )
                rows.append((by_system[coded.system], criterion, coded.value, coded.label, coded.spans))
                continue
            errors.append(
                f"criterion {name!r}"
                + (f", position {position}" if position is not None else "")
                + ": no value given; every criterion needs an answer"
                + (" for every output" if position is not None else "")
            )
        if not errors:
            try:
                task_type.check_screen([value for _, c, value, _, _ in rows if c is criterion])
            except TaskTypeError as exc:
                errors.append(f"criterion {name!r}: {exc}")
    if errors:
        raise ValidationError({"values": errors})
    return rows
