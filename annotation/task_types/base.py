"""What every task type provides: criteria, output-count and gold validation, value coding, and the facts
the other apps read (``facts``)."""
import math
import random
from dataclasses import dataclass
from pathlib import Path

from .facts import Facts


class TaskTypeError(ValueError):
    """A value does not fit the task type; the message says what and where."""


@dataclass(frozen=True)
class CriterionScale:
    """The part of a criterion the task type needs (model instances and import rows both give it)."""

    name: str
    scale_min: float | None
    scale_max: float | None
    # rankme with a modulus: values are positive magnitudes relative to it, the range does not bound them
    modulus: float | None = None


def number(value, what: str) -> float:
    """A finite real number (bools and numeric strings are refused: they hide typing mistakes)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TaskTypeError(f"{what} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise TaskTypeError(f"{what} must be a finite number, got {value!r}")
    return float(value)


def in_scale(value: float, criterion: CriterionScale, what: str) -> float:
    if not criterion.scale_min <= value <= criterion.scale_max:
        raise TaskTypeError(f"{what} {value:g} is off the scale {criterion.scale_min:g}–{criterion.scale_max:g}")
    return value


def scale_number(value, criterion: CriterionScale, what: str) -> float:
    """A number on the criterion's scale, or any positive number when the project has a RankME modulus."""
    x = number(value, what)
    if criterion.modulus is None:
        return in_scale(x, criterion, what)
    if x <= 0:
        raise TaskTypeError(f"{what} must be a positive score relative to the modulus "
                            f"({criterion.modulus:g}), got {x:g}")
    return x


class TaskType:
    slug: str
    label: str
    template_name: str
    level_of_measurement: str
    min_outputs: int
    max_outputs: int | None = None
    # One value per output and criterion on a rating screen; False: one value per criterion for the screen.
    per_output: bool = True
    # What a lead must know to read the coded categories (category_name), said once beside them; "" if nothing.
    category_note: str = ""
    # The project may set a modulus (magnitude estimation against a fixed reference score).
    takes_modulus: bool = False
    # How quality control reads the shown order (facts.LEFT_WINS / facts.TOP_FIRST); None: not measured.
    position_bias: str | None = None

    def __init__(self, directory: Path, facts: Facts):
        # ``directory``: the package, whose templates/ the template loader serves
        self.directory = directory
        self.values, self.agreement, self.results = facts.values, facts.agreement, facts.results
        self.card, self.setup = facts.card, facts.setup

    def normalise_scale(self, scale_min, scale_max, labels) -> tuple[float | None, float | None, list]:
        """Checked (scale_min, scale_max, labels) for a new criterion; raises TaskTypeError."""
        raise NotImplementedError

    def check_output_count(self, n: int) -> None:
        if n < self.min_outputs or (self.max_outputs is not None and n > self.max_outputs):
            if self.max_outputs == self.min_outputs:
                wanted = f"exactly {self.min_outputs}"
            elif self.max_outputs is None:
                wanted = f"at least {self.min_outputs}"
            else:
                wanted = f"{self.min_outputs} to {self.max_outputs}"
            raise TaskTypeError(f"outputs: a {self.slug} item needs {wanted} outputs, got {n}")

    def normalise_gold(self, gold, criteria: dict[str, CriterionScale], systems: list[str]) -> dict:
        """Gold answers in the task type's canonical form; raises TaskTypeError naming the field."""
        raise NotImplementedError

    def gold_on_screen(self, gold: dict, criterion: str, shown_systems: list[str]) -> list[dict]:
        """The gold answers as a rating screen takes them ({criterion, position?, value}), for training
        feedback; ``shown_systems`` are the systems in display order."""
        raise NotImplementedError

    def gold_correct(self, gold: dict, criterion: str, system: str, value: float) -> bool | None:
        """Whether a stored judgment (``value`` as coded, on ``system``'s output) matches the item's
        normalised gold; None when the gold says nothing about that criterion and output."""
        raise NotImplementedError

    def code_value(self, value, criterion: CriterionScale, systems: list[str], system: str | None
                   ) -> tuple[str, float, str]:
        """(system judged, numeric value, label) for one judged value of an imported or submitted line.

        ``systems`` are the item's systems in imported order; ``system`` names the output judged.
        """
        raise NotImplementedError

    def draw_order(self, systems: list[str], rng: random.Random, left_balance: dict[str, int], *,
                   randomise: bool = True) -> list[int]:
        """Output positions (as imported) in the order one rater is shown them: a fresh shuffle, so
        no system profits from always being read first; the imported order when ``randomise`` is off."""
        order = list(range(len(systems)))
        if randomise:
            rng.shuffle(order)
        return order

    def order_record(self, balance: dict, systems: list[str], order: list[int]) -> bool:
        """Notes the order just shown in the rater's ``balance`` (Membership.left_balance), which the next
        draw_order reads; True when it changed (the caller saves it). A fresh shuffle keeps nothing."""
        return False

    def screen_value(self, value, shown_systems: list[str], display_position: int | None) -> tuple[str | None, object]:
        """(system judged, value as an import line gives it) for a value given on a rating screen,
        where ``display_position`` indexes ``shown_systems`` (the systems in display order)."""
        if display_position is None:
            if len(shown_systems) != 1:
                raise TaskTypeError("position is missing: say which output (0 is the first shown) the value is for")
            display_position = 0
        if isinstance(display_position, bool) or not isinstance(display_position, int) \
                or not 0 <= display_position < len(shown_systems):
            raise TaskTypeError(f"position must be 0 to {len(shown_systems) - 1}, got {display_position!r}")
        return shown_systems[display_position], value

    def form_value(self, raw: str):
        """A rating form's string as the value the API would carry: a number when it reads as one."""
        raw = raw.strip()
        for kind in (int, float):
            try:
                return kind(raw)
            except ValueError:
                pass
        return raw

    def slider(self, criterion: dict, answer, modulus: float | None) -> dict:
        """For a criterion a screen asks with a slider (``choices`` None): ``{low, high, step, position,
        log_scale}`` (and ``ends``, the scores at a log slider's ends) as the template writes them."""
        raise NotImplementedError

    def category_name(self, value: float, criterion) -> str:
        """How a coded category (a value as stored, e.g. in a coincidence matrix) is named on a lead's page,
        for ``criterion`` (a Criterion row): its number, and its label where the scale has labels."""
        labels = list(criterion.labels or [])
        k = int(value - criterion.scale_min) if criterion.scale_min is not None else -1
        return f"{value:g} {labels[k]}" if 0 <= k < len(labels) and float(value).is_integer() else f"{value:g}"

    def screen_answer(self, value: float):
        """A stored value as the rating form shows it back."""
        return value

    def imported_order_answer(self, value: float):
        """A stored value as a screen showing the outputs in imported order takes it (the adjudicator's
        screen, which shows every rater's answer that way)."""
        return self.screen_answer(value)

    def degraded_outputs(self, outputs: list[tuple[str, str]], degrade, suffix: str) -> list[tuple[str, str]]:
        """The (system, text) outputs of a degraded control made from an item's ``outputs``, where
        ``degrade(text)`` damages a text (``suffix`` marks a damaged copy's system): every output damaged."""
        return [(system, degrade(text)) for system, text in outputs]

    def repeat_same(self, value: float, before: float, low: float | None, high: float | None,
                    modulus: float | None) -> bool:
        """Whether a repeat's coded ``value`` counts as the same answer as the original's ``before``."""
        return value == before

    def gold_rows(self, gold: dict) -> list[dict]:
        """An item's normalised gold as a lead's page lists it: ``{criterion, system, expected}`` per answer
        (``system`` "" where the answer holds for the whole screen)."""
        rows = []
        for criterion, answer in gold.items():
            per_system = answer if isinstance(answer, dict) else {"": answer}
            for system, value in per_system.items():
                expected = (f"{value[0]:g}–{value[1]:g}" if isinstance(value, list)
                            else f"{value:g}" if isinstance(value, int | float) else str(value))
                rows.append({"criterion": criterion, "system": system, "expected": expected})
        return rows

    def screen_criterion(self, criterion) -> dict:
        """What a rating screen needs to ask ``criterion`` (a Criterion row): its scale and labels."""
        return {"id": criterion.pk, "name": criterion.name, "help_text": criterion.help_text,
                "scale_min": criterion.scale_min, "scale_max": criterion.scale_max,
                "labels": list(criterion.labels or []), "choices": None}


def check_gold_criteria(gold, criteria: dict[str, CriterionScale]) -> dict:
    if not isinstance(gold, dict) or not gold:
        raise TaskTypeError("gold must be an object keyed by criterion name")
    unknown = sorted(set(gold) - set(criteria))
    if unknown:
        raise TaskTypeError(f"gold: unknown criterion {', '.join(map(repr, unknown))}; "
                            f"criteria are {', '.join(map(repr, criteria))}")
    return gold


def check_system(system, systems: list[str], what: str) -> str:
    if system not in systems:
        raise TaskTypeError(f"{what}: {system!r} is not a system of this item ({', '.join(map(repr, systems))})")
    return system
