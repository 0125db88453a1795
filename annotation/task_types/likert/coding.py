"""Likert scales (direct assessment): one input, one or more outputs, each rated on each criterion's
integer scale, e.g. 1–5 fluency as in the HANNA and SummEval protocols."""

from ..base import (
    CriterionScale,
    TaskType,
    TaskTypeError,
    check_gold_criteria,
    check_system,
    in_scale,
    number,
)

MAX_POINTS = 101


def integer(value, what: str) -> int:
    x = number(value, what)
    if not x.is_integer():
        raise TaskTypeError(f"{what} must be a whole number on a Likert scale, got {value!r}")
    return int(x)


class Likert(TaskType):
    slug = "likert"
    label = "Likert scale"
    template_name = "annotation/likert/rate.html"
    level_of_measurement = "ordinal"
    min_outputs = 1
    # A point on a scale stands on its own, so an assistant turn can be rated like any output.
    rates_turns = True

    def normalise_scale(self, scale_min, scale_max, labels):
        if scale_min is None or scale_max is None:
            raise TaskTypeError("a Likert criterion needs scale_min and scale_max")
        low, high = integer(scale_min, "scale_min"), integer(scale_max, "scale_max")
        if low >= high:
            raise TaskTypeError(f"scale_min ({low}) must be below scale_max ({high})")
        if high - low + 1 > MAX_POINTS:
            raise TaskTypeError(f"a Likert scale has at most {MAX_POINTS} points, got {high - low + 1}")
        labels = list(labels or [])
        if labels and len(labels) != high - low + 1:
            raise TaskTypeError(f"labels: give one label per scale point ({high - low + 1}), got {len(labels)}")
        if not all(isinstance(x, str) for x in labels):
            raise TaskTypeError("labels must be strings")
        return float(low), float(high), labels

    def normalise_gold(self, gold, criteria, systems):
        """``{"fluency": 5}`` (every output) or ``{"fluency": {"bart": 5}}`` → ``{"fluency": {"bart": 5}}``."""
        out = {}
        for name, answer in check_gold_criteria(gold, criteria).items():
            per_system = answer if isinstance(answer, dict) else dict.fromkeys(systems, answer)
            out[name] = {
                check_system(s, systems, f"gold.{name}"): int(
                    in_scale(integer(v, f"gold.{name}"), criteria[name], f"gold.{name} value")
                )
                for s, v in per_system.items()
            }
        return out

    def gold_on_screen(self, gold, criterion, shown_systems):
        answer = gold.get(criterion)
        per_system = answer if isinstance(answer, dict) else dict.fromkeys(shown_systems, answer)
        return [
            {"criterion": criterion, "position": p, "value": per_system[s]}
            for p, s in enumerate(shown_systems)
            if per_system.get(s) is not None
        ]

    def gold_correct(self, gold, criterion, system, value, spans=()):
        """Exact: the category given is the expected one."""
        expected = gold.get(criterion)
        if isinstance(expected, dict):
            expected = expected.get(system)
        return None if expected is None else value == expected

    def code_value(self, value, criterion: CriterionScale, systems, system):
        if system is None:
            if len(systems) != 1:
                raise TaskTypeError("system: name the output judged (this item has several)")
            system = systems[0]
        check_system(system, systems, "system")
        x = in_scale(integer(value, "value"), criterion, "value")
        return system, float(x), ""

    def screen_answer(self, value):
        return int(value)

    def screen_criterion(self, criterion):
        screen = super().screen_criterion(criterion)
        points = range(int(criterion.scale_min), int(criterion.scale_max) + 1)
        labels = screen["labels"] or [""] * len(points)
        screen["choices"] = [{"value": v, "label": label} for v, label in zip(points, labels, strict=True)]
        return screen
