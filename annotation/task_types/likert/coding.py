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
        """``{"fluency": 5}`` (every output) or ``{"fluency": {"bart": 5}}`` → ``{"fluency": {"bart": 5}}``; per
        assistant turn (a project rating per turn), ``{"fluency": {"bart": {"1": 5, "3": 4}}}`` by turn index."""
        out = {}
        for name, answer in check_gold_criteria(gold, criteria).items():
            if not isinstance(answer, dict):
                point = self._gold_point(answer, criteria[name], f"gold.{name}")
                out[name] = dict.fromkeys(systems, point)
                continue
            out[name] = {
                check_system(s, systems, f"gold.{name}"): self._gold_point(v, criteria[name], f"gold.{name}.{s}")
                for s, v in answer.items()
            }
        return out

    def _gold_point(self, value, criterion: CriterionScale, what: str) -> int | dict[str, int]:
        if not isinstance(value, dict):
            return int(in_scale(integer(value, what), criterion, f"{what} value"))
        if not value:
            raise TaskTypeError(f"{what}: give a point per assistant turn, keyed by the turn's index")
        per_turn = {}
        for turn, point in value.items():
            if not (turn.isascii() and turn.isdigit() and len(turn) <= 5):
                raise TaskTypeError(f"{what}: {turn!r} is not a turn index (a whole number from 0)")
            per_turn[str(int(turn))] = int(
                in_scale(integer(point, f"{what}.{turn}"), criterion, f"{what}.{turn} value")
            )
        return per_turn

    def check_gold_turns(self, gold, rated_turns):
        for name, per_system in gold.items():
            for system, answer in per_system.items():
                if not isinstance(answer, dict):
                    continue
                rated = rated_turns.get(system) or []
                if not rated:
                    raise TaskTypeError(
                        f"gold.{name}.{system}: this project rates whole outputs; give one point, not one per turn"
                    )
                wrong = sorted(int(t) for t in answer if int(t) not in rated)
                if wrong:
                    raise TaskTypeError(
                        f"gold.{name}.{system}: turn {', '.join(map(str, wrong))} is not an assistant turn of the "
                        f"output; its assistant turns are {', '.join(map(str, rated))}"
                    )

    def gold_on_screen(self, gold, criterion, shown_systems):
        answer = gold.get(criterion)
        per_system = answer if isinstance(answer, dict) else dict.fromkeys(shown_systems, answer)
        screen = []
        for p, s in enumerate(shown_systems):
            expected = per_system.get(s)
            if isinstance(expected, dict):
                screen += [
                    {"criterion": criterion, "position": p, "turn": int(t), "value": v} for t, v in expected.items()
                ]
            elif expected is not None:
                screen.append({"criterion": criterion, "position": p, "value": expected})
        return screen

    def gold_correct(self, gold, criterion, system, value, spans=(), turn=None):
        """Exact: the category given is the expected one. A point for the output holds for each of its turns; points
        per turn say nothing about the whole output."""
        expected = gold.get(criterion)
        if isinstance(expected, dict):
            expected = expected.get(system)
        if isinstance(expected, dict):
            expected = None if turn is None else expected.get(str(turn))
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
