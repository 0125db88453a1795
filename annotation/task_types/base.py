"""What every task type provides: criteria, output-count and gold validation, value coding, and the facts
the other apps read (``facts``)."""

import math
import random
from dataclasses import dataclass
from pathlib import Path

from core.outside_text import MAX_INTEGER

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


@dataclass(frozen=True)
class Span:
    """One error span of an answer, as stored (annotation.models.ErrorSpan): ``[start, end)`` in code points of
    the output's text (``side`` "target") or of the item's input ("source"); ``proposal`` the id of the model's
    proposal it answers (ProposedSpan), if any."""

    side: str
    start: int
    end: int
    severity: str
    category: str
    origin: str
    proposal: int | None = None


@dataclass(frozen=True)
class Coded:
    """One judged value coded: the system judged, its number and label, and its error spans (error-span types)."""

    system: str
    value: float
    label: str
    spans: tuple[Span, ...] = ()


@dataclass(frozen=True)
class ScaledOutput:
    """One line of an import of single outputs that a type arranges into screens itself (``screens_from_outputs``):
    its line number, external id, input, output (system and text) and subgroup, and the turns of a conversation
    input or output (None for plain text)."""

    line: int
    external_id: str
    input: str
    system: str
    text: str
    subgroup: str
    input_turns: list[dict] | None = None
    output_turns: list[dict] | None = None


@dataclass(frozen=True)
class Proposal:
    """A model's proposed span on an output (ProposedSpan), as a screen lists it."""

    id: int
    side: str
    start: int
    end: int
    severity: str
    category: str


@dataclass(frozen=True)
class ScreenTexts:
    """What an answer may be checked against beyond the criterion: the item's input, each system's output text
    as imported, and each system's proposed spans in screen order."""

    source: str
    outputs: dict[str, str]
    proposals: dict[str, tuple[Proposal, ...]]


def number(value, what: str) -> float:
    """A finite real number (bools and numeric strings are refused: they hide typing mistakes)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TaskTypeError(f"{what} must be a number, got {value!r}")
    if isinstance(value, int) and abs(value) > MAX_INTEGER:  # before isfinite, which overflows on a huge int
        raise TaskTypeError(f"{what} is too large a number (at most {MAX_INTEGER} in size)")
    if not math.isfinite(value):
        raise TaskTypeError(f"{what} must be a finite number, got {value!r}")
    return float(value)


def in_scale(value: float, criterion: CriterionScale, what: str) -> float:
    """``value`` on the criterion's scale; a criterion without a scale (MQM's penalty) bounds nothing."""
    if criterion.scale_min is None or criterion.scale_max is None:
        return value
    if not criterion.scale_min <= value <= criterion.scale_max:
        raise TaskTypeError(f"{what} {value:g} is off the scale {criterion.scale_min:g}–{criterion.scale_max:g}")
    return value


def scale_number(value, criterion: CriterionScale, what: str) -> float:
    """A number on the criterion's scale, or any positive number when the project has a RankME modulus."""
    x = number(value, what)
    if criterion.modulus is None:
        return in_scale(x, criterion, what)
    if x <= 0:
        raise TaskTypeError(
            f"{what} must be a positive score relative to the modulus ({criterion.modulus:g}), got {x:g}"
        )
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
    # Said on the quality-control pages where position bias is not measured and a lead would look for it.
    position_bias_note: str = ""
    # Why degraded copies tell nothing about a rater of this type; set, the platform makes none and says this.
    degraded_note: str = ""
    # The most criteria a project of this type takes (None: no limit).
    max_criteria: int | None = None
    # Coding an answer needs the screen's texts (code_answer's ``texts``): offsets into them are checked.
    reads_texts: bool = False
    # What an output of a per-output screen left without an answer counts as (best–worst: "neither"); None: every
    # output needs an answer.
    unanswered_value: str | None = None
    # A judgment import groups each rater's lines on an item and criterion and has check_screen take them together.
    checks_screens: bool = False
    # An import whose every line has one output is a list of outputs that the type arranges into screens
    # (screens_from_outputs); False: every line is a screen.
    draws_screens: bool = False
    # A project may rate a conversation output per assistant turn (Project.rating_unit): each criterion is asked of
    # every assistant turn on its own, one value per output, turn and criterion. Types whose value compares outputs
    # as a whole or points into the output's text leave it off.
    rates_turns: bool = False
    # Fields of task_config a lead may change while the project runs (annotation.services.project), e.g. a
    # pairwise project's adaptive allocation; the others are fixed at creation.
    live_config_fields: tuple[str, ...] = ()
    # What adaptive allocation (annotation.task_types.adaptive) draws for a screen of this type: PAIRS or TUPLES of
    # systems; None: the type does not allocate adaptively.
    adaptive_unit: str | None = None

    def __init__(self, directory: Path, facts: Facts):
        # ``directory``: the package, whose templates/ the template loader serves
        self.directory = directory
        self.values, self.agreement, self.results = facts.values, facts.agreement, facts.results
        self.card, self.setup = facts.card, facts.setup

    def normalise_scale(self, scale_min, scale_max, labels) -> tuple[float | None, float | None, list]:
        """Checked (scale_min, scale_max, labels) for a new criterion; raises TaskTypeError."""
        raise NotImplementedError

    def normalise_config(self, config) -> dict:
        """The project's ``task_config`` checked and completed with its defaults; raises TaskTypeError naming
        the field. A type that reads no settings takes none."""
        if config not in (None, {}):
            raise TaskTypeError(f"task_config: a {self.slug} project takes no settings, got {config!r}")
        return {}

    def normalise_proposals(self, raw, *, config: dict, source: str, text: str, what: str) -> tuple[Span, ...]:
        """An imported output's ``proposed_spans`` (a model's, for raters to review) checked against its
        ``text`` and the item's ``source``; raises TaskTypeError naming ``what`` (e.g. outputs[1].proposed_spans).
        A type without error spans takes none."""
        raise TaskTypeError(f"{what}: a {self.slug} project takes no proposed spans")

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

    def gold_correct(
        self,
        gold: dict,
        criterion: str,
        system: str,
        value: float,
        spans: tuple[Span, ...] = (),
        turn: int | None = None,
    ) -> bool | None:
        """Whether a stored judgment (``value`` as coded, on ``system``'s output, with its error ``spans`` for a type
        that reads texts, of its assistant ``turn`` in a project rating per turn) matches the item's normalised gold;
        None when the gold says nothing about that criterion and output (or turn)."""
        raise NotImplementedError

    def check_gold_turns(self, gold: dict, rated_turns: dict[str, list[int]]) -> None:
        """Checks the turns a normalised gold answers against the assistant turns each system's output has rated
        (``rated_turns``, empty lists in a project rating whole outputs); raises TaskTypeError naming the field. A
        type that does not rate turns has none in its gold."""

    def check_gold_texts(self, gold: dict, source: str, outputs: dict[str, str]) -> None:
        """Checks a normalised gold against the item's input and output texts (by system) where it points into
        them; raises TaskTypeError naming the field. Gold answers that point into no text pass."""

    def code_value(
        self, value, criterion: CriterionScale, systems: list[str], system: str | None
    ) -> tuple[str, float, str]:
        """(system judged, numeric value, label) for one judged value of an imported or submitted line.

        ``systems`` are the item's systems in imported order; ``system`` names the output judged.
        """
        raise NotImplementedError

    def code_answer(
        self,
        value,
        criterion: CriterionScale,
        systems: list[str],
        system: str | None,
        *,
        config: dict,
        texts: ScreenTexts | None,
    ) -> Coded:
        """``code_value`` with what some types check an answer against: the project's normalised ``config`` and,
        for a type that ``reads_texts``, the screen's ``texts``; the default codes the value alone."""
        return Coded(*self.code_value(value, criterion, systems, system))

    def check_screen(self, values: list[float]) -> None:
        """Checks one criterion's coded ``values`` of a whole screen (one per output) together; raises TaskTypeError.
        Values that are right one by one are right together, by default."""

    def screens_from_outputs(self, outputs: list[ScaledOutput], config: dict, *, first: int) -> list[dict]:
        """Item import lines of the screens a type that ``draws_screens`` makes from imported ``outputs`` under the
        project's normalised ``config``, numbered from ``first``; raises TaskTypeError naming the line."""
        raise NotImplementedError

    def form_field(self, suffix: str, raw: str) -> tuple[int | None, object]:
        """(display position, value as the API takes it) of a rating form's field ``v-<criterion id>[-<suffix>]``
        holding ``raw``: the suffix is the output's display position, a whole number (None if it is not one: the
        check of the values then refuses it)."""
        position = int(suffix) if suffix.isascii() and suffix.isdigit() and len(suffix) <= 18 else None
        return position, self.form_value(raw)

    def draw_order(
        self, systems: list[str], rng: random.Random, left_balance: dict[str, int], *, randomise: bool = True
    ) -> list[int]:
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
        if (
            isinstance(display_position, bool)
            or not isinstance(display_position, int)
            or not 0 <= display_position < len(shown_systems)
        ):
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

    def question_fields(self, question: dict, modulus: float | None, config: dict) -> dict:
        """What a rating template needs beyond a ``question``'s criterion, output, field and answer, for a project
        with ``config`` (its task_config): a slider's drawing where the criterion has no choices."""
        if question["criterion"]["choices"] is None:
            return {"slider": self.slider(question["criterion"], question["answer"], modulus)}
        return {}

    def category_name(self, value: float, criterion) -> str:
        """How a coded category (a value as stored, e.g. in a coincidence matrix) is named on a lead's page,
        for ``criterion`` (a Criterion row): its number, and its label where the scale has labels."""
        labels = list(criterion.labels or [])
        k = int(value - criterion.scale_min) if criterion.scale_min is not None else -1
        return f"{value:g} {labels[k]}" if 0 <= k < len(labels) and float(value).is_integer() else f"{value:g}"

    def feedback(self, expected, given) -> tuple[str, str, bool]:
        """A training screen's feedback on one question: (the expected answer, the rater's, whether they match) in
        words, from ``expected`` as gold_on_screen gives it and ``given`` as the screen gave it (None: none)."""
        ok = (
            expected[0] <= given <= expected[1]
            if isinstance(expected, list) and given is not None
            else given == expected
        )
        return _answer_words(expected), "—" if given is None else _answer_words(given), ok

    def screen_answer(self, value: float):
        """A stored value as the rating form shows it back."""
        return value

    def stored_answer(self, value: float, spans: tuple[Span, ...], proposal_index: dict[int, int]):
        """A stored judgment as a screen gives it: its value with its error ``spans`` (types that read texts),
        whose proposals are numbered as the screen lists them (``proposal_index``: ProposedSpan id → index)."""
        return self.screen_answer(value)

    def imported_order_answer(self, value: float):
        """A stored value as a screen showing the outputs in imported order takes it (the adjudicator's
        screen, which shows every rater's answer that way)."""
        return self.screen_answer(value)

    def adjudication_answer(self, value: float, spans: tuple[Span, ...]):
        """A rater's stored answer (``value`` as coded, with its error ``spans``) as the adjudicator's screen lists
        it, unnamed, the outputs in imported order."""
        return self.imported_order_answer(value)

    def answer_words(self, answer, *, source: str, text: str) -> str | None:
        """A rater's answer (as adjudication_answer gives it) in words on the adjudicator's screen, where a number
        alone would not say it (error spans: the texts marked, in the item's ``source`` or the output's ``text``);
        None: the value as the criterion words it."""
        return None

    def degraded_outputs(self, outputs: list[tuple[str, str]], degrade, suffix: str) -> list[tuple[str, str]]:
        """The (system, text) outputs of a degraded control made from an item's ``outputs``, where
        ``degrade(text)`` damages a text (``suffix`` marks a damaged copy's system): every output damaged."""
        return [(system, degrade(text)) for system, text in outputs]

    def damage_marked(
        self, original: str, copy: str, copy_spans: tuple[Span, ...], original_spans: tuple[Span, ...]
    ) -> tuple[bool, bool] | None:
        """For a type whose answers mark places in the text: (whether the spans on a degraded ``copy`` of an output
        mark its damage, whether the same rater's spans on the ``original`` mark the same place there); None for
        a type whose degraded copies are checked by their scores."""
        return None

    def repeat_same(
        self, value: float, before: float, low: float | None, high: float | None, modulus: float | None
    ) -> bool:
        """Whether a repeat's coded ``value`` counts as the same answer as the original's ``before``."""
        return value == before

    def gold_rows(self, gold: dict) -> list[dict]:
        """An item's normalised gold as a lead's page lists it: ``{criterion, system, expected}`` per answer
        (``system`` "" where the answer holds for the whole screen)."""
        rows = []
        for criterion, answer in gold.items():
            per_system = answer if isinstance(answer, dict) else {"": answer}
            for system, value in per_system.items():
                expected = (
                    f"{value[0]:g}–{value[1]:g}"
                    if isinstance(value, list)
                    else f"{value:g}"
                    if isinstance(value, int | float)
                    else str(value)
                )
                rows.append({"criterion": criterion, "system": system, "expected": expected})
        return rows

    def span_weigher(self, task_config: dict):
        """For spans scored by weight (Results.kind ERROR_SPANS, MQM): ``weight(severity, category) -> float`` under
        the project's normalised ``task_config``, a rating's score being its spans' sum; None when a rating's coded
        value is its score (ESA)."""
        return None

    def screen_criterion(self, criterion) -> dict:
        """What a rating screen needs to ask ``criterion`` (a Criterion row): its scale and labels."""
        return {
            "id": criterion.pk,
            "name": criterion.name,
            "help_text": criterion.help_text,
            "scale_min": criterion.scale_min,
            "scale_max": criterion.scale_max,
            "labels": list(criterion.labels or []),
            "choices": None,
        }


def _answer_words(value) -> str:
    if isinstance(value, list):
        return f"{value[0]:g}–{value[1]:g}"
    return {"A": "left (A)", "B": "right (B)", "tie": "tie"}.get(
        value, f"{value:g}" if isinstance(value, float) else str(value)
    )


def check_gold_criteria(gold, criteria: dict[str, CriterionScale]) -> dict:
    if not isinstance(gold, dict) or not gold:
        raise TaskTypeError("gold must be an object keyed by criterion name")
    unknown = sorted(set(gold) - set(criteria))
    if unknown:
        raise TaskTypeError(
            f"gold: unknown criterion {', '.join(map(repr, unknown))}; criteria are {', '.join(map(repr, criteria))}"
        )
    return gold


def check_system(system, systems: list[str], what: str) -> str:
    if system not in systems:
        raise TaskTypeError(f"{what}: {system!r} is not a system of this item ({', '.join(map(repr, systems))})")
    return system
