"""What a task type declares for the apps above annotation (agreement, evaluation, console): frozen facts
they read through the registry, so that no code outside the task type packages branches on a type's name.

Names of statistics are those of ``agreement.engine.statistics.STATISTICS``; export columns are
``(name, type, description)`` as ``evaluation.export.tables.Column`` takes them."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

# What a coded judgment value is (Values.kind).
POINTS = "points"  # a whole number on the criterion's scale; its categories are the scale's points
CONTINUOUS = "continuous"  # a number on the criterion's range (or relative to a modulus); no categories
OUTCOME = "outcome"  # the outcome of the item's first output against its second; categories Values.outcomes
SPANS = "spans"  # error spans in an output (annotation.models.ErrorSpan) with a number: ESA's score, MQM's penalty

# How an adjudication rule reads one output's values on one criterion (Values.disagreement).
CATEGORIES_DIFFER = "categories_differ"  # any two values differ; the rule takes no threshold
SPREAD = "spread"  # highest minus lowest above the lead's threshold; without one, any two values differ
# Error spans (SPANS values): some rater's span overlaps none of another rater's spans on the same output (see
# spans_apart); with a threshold, values further apart than it disagree too (without one, values are not read).
SPANS_APART = "spans_apart"
NOT_ADJUDICATED = "not_adjudicated"  # the adjudicator's screen cannot take this type's answers; the rule is refused

# What results are computed from the judgments (Results.kind).
SCORED = "scored"  # a score per output: means per system with bootstrap intervals
COMPARED = "compared"  # an outcome per pair of outputs: wins, ties, losses and Bradley–Terry strengths
ERROR_SPANS = "error_spans"  # spans scored per segment, system and category (MQM weights, ESA scores), ranked

# How quality control reads the order an assignment showed (Quality.position_bias).
LEFT_WINS = "left_wins"  # a pair: the left output's share of the decided judgments
TOP_FIRST = "top_first"  # k outputs: the first-shown output's share of the screens' single top scores


@dataclass(frozen=True)
class Values:
    """The coded judgment values: their ``kind``; ``outcomes`` (OUTCOME) the coded outcomes, lowest first,
    ``outcome_labels`` their names in judge tables and ``distribution_labels`` in the data card's label
    distributions; ``export_type`` the parquet type of the
    judgments' ``value`` column, described by ``export_description``; ``export_columns`` the judgments
    table's columns only this type has; ``disagreement`` how an adjudication rule compares raters' values
    (CATEGORIES_DIFFER, SPREAD, SPANS_APART, NOT_ADJUDICATED)."""

    kind: str
    export_type: str
    export_description: str
    outcomes: tuple[float, ...] = ()
    outcome_labels: tuple[str, ...] = ()
    distribution_labels: tuple[str, ...] = ()
    export_columns: tuple[tuple[str, str, str], ...] = ()
    disagreement: str = SPREAD

    @property
    def takes_threshold(self) -> bool:
        """An adjudication rule may set how far apart the values must be (else: any difference, or for spans,
        the spans alone)."""
        return self.disagreement != CATEGORIES_DIFFER

    @property
    def adjudicated(self) -> bool:
        return self.disagreement != NOT_ADJUDICATED

    def disagree(
        self, values: list[float], threshold: float | None, spans: list[tuple[tuple[str, int, int], ...]] = ()
    ) -> bool:
        """Whether raters' ``values`` (as coded, one per rater) disagree under a lead's adjudication rule;
        ``spans``: for SPANS_APART, each rater's marked error spans as (side, start, end), in the same order."""
        if len(values) < 2 or not self.adjudicated:
            return False
        if self.disagreement == SPANS_APART:
            spread = threshold is not None and max(values) - min(values) > threshold
            return spread or spans_apart(spans)
        if threshold is None or not self.takes_threshold:
            return max(values) != min(values)
        return max(values) - min(values) > threshold

    def rule_words(self, threshold: float | None) -> str:
        """The rule as the lead's page states it (when it is on)."""
        apart = "" if threshold is None else f" more than {threshold:g} apart"
        if self.disagreement == SPANS_APART:
            return "a rater's error span on an output overlaps none of another rater's spans" + (
                f", or raters' values of an output are{apart}" if apart else ""
            )
        return f"raters' values of an output on a criterion {'are' + apart if apart else 'differ'}"

    @property
    def threshold_hint(self) -> str:
        """What the lead's page says of the rule's threshold left empty."""
        if self.disagreement == SPANS_APART:
            return (
                "Empty: the error spans alone decide; with a number, values further apart than it queue the item too."
            )
        return "Empty: any difference between two raters' values of one output on one criterion queues the item."

    def categories(self, scale_min: float | None, scale_max: float | None) -> tuple[float, ...] | None:
        """The declared, ordered categories of a criterion (None for continuous values)."""
        if self.kind == OUTCOME:
            return self.outcomes
        if self.kind == POINTS:
            return tuple(float(x) for x in range(int(scale_min), int(scale_max) + 1))
        return None


def overlaps(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    """Whether two spans share a code point; a span of no length (something missing at a point) overlaps a
    span that holds or borders that point."""
    if a_start == a_end or b_start == b_end:
        return max(a_start, b_start) <= min(a_end, b_end)
    return max(a_start, b_start) < min(a_end, b_end)


def spans_apart(per_rater: list[tuple[tuple[str, int, int], ...]]) -> bool:
    """Whether raters' error spans on one output disagree: some rater's span (side, start, end) is overlapped by
    no span on the same side of some other rater. A rater who marked no error disagrees with one who marked any;
    raters who all marked none agree."""
    for a, mine in enumerate(per_rater):
        for b, theirs in enumerate(per_rater):
            if a != b and any(
                not any(side == s and overlaps(start, end, s_start, s_end) for s, s_start, s_end in theirs)
                for side, start, end in mine
            ):
                return True
    return False


@dataclass(frozen=True)
class SpanAgreement:
    """Agreement on the error spans of SPANS values (agreement.services.span_snapshots): span-level F1,
    character-level kappa and alpha and unitizing alpha per label, beside the plan's statistics on the
    numbers. ``severities`` least severe first: one label each, and their order on the severity scale
    (where spans of one rater overlap, the most severe counts)."""

    severities: tuple[str, ...]


@dataclass(frozen=True)
class AgreementPlan:
    """``label`` statistics run on every criterion scope (the first is the main one, bootstrapped, at
    ``level``); ``slice`` statistics on subgroup and overall scopes; ``pair_weights`` the Cohen kappa
    weightings per rater pair (None: pairs get interval alpha instead); ``unit`` what a reliability
    unit is (an output, or an item when one judgment covers the screen); ``spans`` agreement on error
    spans, for the types whose values have them; ``implied_pairs`` agreement on the pairwise preferences a
    screen's answers imply."""

    level: str
    label: tuple[str, ...]
    slice: tuple[str, ...]
    pair_weights: tuple[str | None, ...] | None
    unit: str = "output"
    spans: SpanAgreement | None = None
    # The units are the pairwise preferences each answer implies (best–worst: the best output over every other
    # output of the screen, every other output over the worst), not the coded values themselves.
    implied_pairs: bool = False


@dataclass(frozen=True)
class Results:
    """What results are computed (``kind``); the normalisation of values by default, and with a project
    modulus; whether the results page counts each scale point (``score_distribution``) and ranks the
    outputs within each screen (``mean_ranks``); ``higher_is_better`` False when a score counts errors
    (MQM's penalty), which orders the error-span ranking."""

    kind: str
    default_normalisation: str = "none"
    modulus_normalisation: str = "none"
    score_distribution: bool = False
    mean_ranks: bool = False
    higher_is_better: bool = True
    # Best–worst screens (one 1, one −1, zeros): MaxDiff strengths and split-half reliability beside the means.
    best_worst: bool = False

    def normalisation(self, modulus: float | None) -> str:
        return self.default_normalisation if modulus is None else self.modulus_normalisation


class CriterionScale(Protocol):
    """What the card's wording reads of a criterion: the export facts' ``CriterionFacts``
    (``evaluation.export.card_facts``)."""

    @property
    def scale_min(self) -> float | None: ...

    @property
    def scale_max(self) -> float | None: ...

    @property
    def labels(self) -> Sequence[str]: ...


@dataclass(frozen=True)
class Card:
    """The data card's and HEDS sheet's wording. ``scale`` / ``heds_scale`` word a criterion's scale
    (a criterion of the export facts, and the project's modulus or None): ``heds_scale`` gives
    (number of values or "continuous", the values); ``aggregation`` how system scores are made (with a
    modulus: ``aggregation_with_modulus``); ``distribution_bins`` how the label distributions bin values
    (without and with a modulus); ``shown_first`` what the first shown output is, for the order share;
    ``outputs_shown`` what a screen shows of the outputs; ``settings`` words a project's normalised
    ``task_config`` (None: the type reads no settings)."""

    name: str
    description: str
    order_policy: str
    shown_first: str
    elicitation: str
    instrument: str
    assessment: str
    scale: Callable[[CriterionScale, float | None], str]
    heds_scale: Callable[[CriterionScale, float | None], tuple[int | str, str]]
    aggregation: str
    aggregation_with_modulus: str = ""
    distribution_bins: tuple[str, str] = (".", ".")
    outputs_shown: str = "the outputs"
    settings: Callable[[dict[str, Any]], str] | None = None


@dataclass(frozen=True)
class Demo:
    """The demo study of this type (``annotation.services.demo``): its project's name, how many of the demo
    systems it compares, its criteria and instructions; ``answers(criterion, scores, rng)`` a simulated
    rater's answers on one screen from their 1–5 ``scores`` of the outputs in display order. A type with a
    ``conversation_name`` also gets a demo study of conversations under that name: two chat assistants' candidate
    next turns, judged on the same criteria, with ``conversation_instructions``; with ``conversation_rating_unit``
    "turn" or "both" (types that rate turns) each assistant's output is instead its whole conversation, every
    assistant turn rated (Project.rating_unit)."""

    name: str
    n_systems: int
    criteria: tuple[dict, ...]
    instructions: str
    answers: object  # Callable[[str, list[float], random.Random], list[dict]]
    conversation_name: str = ""
    conversation_instructions: str = ""
    conversation_rating_unit: str = "conversation"


@dataclass(frozen=True)
class Setup:
    """What the lead console starts a project of this type from: the ``criterion`` a new project gets, how
    many outputs a sample item has (the screen preview's, the demo items'), and the hint beside the criteria;
    the ``demo`` study; ``has_scale`` False when criteria take no scale (the console hides its fields)."""

    criterion: dict
    sample_outputs: int
    hint: str
    demo: Demo
    has_scale: bool = True


@dataclass(frozen=True)
class Facts:
    """Everything a task type declares for the other apps (each a field of its TaskType)."""

    values: Values
    agreement: AgreementPlan
    results: Results
    card: Card
    setup: Setup
