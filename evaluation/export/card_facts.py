"""The data card's facts: everything the README card, the HEDS datasheet and the soft-label and rater-profile
sections state about an export, as frozen dataclasses built once by ``evaluation.services.export``.
``card.json`` is these facts as JSON (``card_json``): each object's keys are its dataclass's fields in declared
order, so the order of the fields below is part of the file's format."""

import json
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class ProjectFacts:
    """The project's set-up as the card states it."""

    #: The export's ``pretty_name``, else the project's name.
    name: str
    task_type: str
    instructions: str
    raters_per_item: int
    #: Share of items that get ``raters_per_item`` raters (the rest get one).
    double_annotation_share: float
    #: Share of screens that show a gold (control) item.
    gold_rate: float
    lease_seconds: int
    show_reference: bool
    #: RankME magnitude estimation: the reference's fixed score; None without a modulus.
    rankme_modulus: float | None
    #: "conversation", "turn" or "both" (``Project.rating_unit``).
    rating_unit: str
    #: The task type's normalised settings ({} when it reads none).
    task_config: dict[str, Any]


@dataclass(frozen=True)
class OptionFacts:
    """The export options the card states (the about texts are ``AboutFacts``)."""

    formats: tuple[str, ...]
    #: "all" (one file per table) or "subgroup" (a split per item subgroup).
    split: str
    include_usernames: bool
    include_excluded: bool
    #: A Hugging Face license id.
    license: str
    languages: tuple[str, ...]
    task_categories: tuple[str, ...]
    csv_raw_text: bool


@dataclass(frozen=True)
class AboutFacts:
    """What the lead stated at export that the platform cannot know, stripped ("" when not stated); the fields
    are ``evaluation.services.export.ABOUT_FIELDS``, in its order."""

    summary: str
    motivation: str
    authors: str
    contact: str
    citation: str
    recruitment: str
    compensation: str
    consent: str
    intended_uses: str
    limitations: str


@dataclass(frozen=True)
class SubgroupCounts:
    """One item subgroup ("" for items without one), in subgroup order."""

    subgroup: str
    n_items: int
    #: Judgments in the export on its items.
    n_judgments: int


@dataclass(frozen=True)
class Quantiles:
    """Min, quartiles (numpy's linear interpolation), max and mean of a count; all None without values."""

    min: int | None
    q1: float | None
    median: float | None
    q3: float | None
    max: int | None
    mean: float | None


@dataclass(frozen=True)
class Exclusions:
    """What the scores and the agreement leave out."""

    n_excluded_raters: int
    #: Judgments of excluded raters on non-gold items.
    excluded_rater_judgments: int
    gold_item_judgments: int
    #: Earlier versions of judgments their rater replaced (never exported).
    superseded_revisions: int


@dataclass(frozen=True)
class CardCounts:
    """Counts of items, outputs, systems, subgroups, raters and the design, over the export's judgments (current,
    up to the export's ids, excluded raters' only when the options include them)."""

    n_items: int
    n_gold_items: int
    n_outputs: int
    #: Outputs per system, by system name in name order.
    systems: dict[str, int]
    #: Number of outputs → items with that many, ascending.
    outputs_per_item: dict[int, int]
    subgroups: tuple[SubgroupCounts, ...]
    n_judgments: int
    #: The judgments scores and agreement use (``included_judgments``: no gold items, no excluded raters).
    n_included_judgments: int
    #: "rater" (the platform's rating screens) and "import" (a study run elsewhere) → judgments; a source
    #: without judgments is absent.
    judgment_sources: dict[str, int]
    n_raters: int
    judgments_per_rater: Quantiles
    #: On non-gold items: number of distinct raters → items with that many, ascending.
    raters_per_item: dict[int, int]
    #: Judgments with a recorded display order.
    n_with_shown_order: int
    #: Of those, the judgments whose judged output (pairwise: the first as imported) was shown first.
    n_first_output_shown_first: int
    #: Median time on a screen; None without timed judgments.
    median_duration_ms: float | None
    n_with_duration: int
    exclusions: Exclusions
    #: ISO dates of the first and last submission; None without judgments.
    first_submitted: str | None
    last_submitted: str | None


@dataclass(frozen=True)
class CriterionFacts:
    """A criterion, in the project's order. Also the task types' card wording reads it
    (``annotation.task_types.facts.CriterionScale``)."""

    name: str
    #: None for criteria without a scale (MQM's penalty).
    scale_min: float | None
    scale_max: float | None
    #: The scale points' labels, lowest first; empty when unlabelled.
    labels: tuple[str, ...]
    help_text: str


@dataclass(frozen=True)
class SystemMean:
    """A system's raw ratings on a criterion (task types with scores): most judgments' mean first."""

    system: str
    n: int
    mean: float


@dataclass(frozen=True)
class SystemTally:
    """A system's comparisons on a criterion (task types that compare outputs), both sides of every pair counted:
    highest win rate first."""

    system: str
    n: int
    wins: int
    ties: int
    losses: int
    #: (wins + ties / 2) / n.
    win_rate: float


@dataclass(frozen=True)
class Estimate:
    """One stored agreement snapshot as the card states it."""

    statistic: str
    #: None when the snapshot holds "insufficient data" (``status``), with the ``reason``.
    value: float | None
    #: The 95% bootstrap interval; None when none was computed.
    ci_low: float | None
    ci_high: float | None
    n_units: int
    n_raters: int
    status: str
    reason: str
    #: Fewer than ``min_reliable_units`` units.
    unreliable: bool


@dataclass(frozen=True)
class RaterNames:
    """Two raters under the export's rater names, sorted."""

    rater_a: str
    rater_b: str


# Dataclasses order the fields of the later base first: rater_a and rater_b come before the estimate's fields.
@dataclass(frozen=True)
class RaterPairEstimate(Estimate, RaterNames):
    """One rater pair's snapshot."""


@dataclass(frozen=True)
class LimitationScope:
    """Where an agreement figure is too weak to trust."""

    #: "criterion" or "subgroup".
    scope: str
    criterion: str
    #: "" for a criterion's figure over every subgroup.
    subgroup: str


# As RaterPairEstimate: the scope's fields come first.
@dataclass(frozen=True)
class Limitation(Estimate, LimitationScope):
    """A main coefficient that rests on too few units or has no value."""


@dataclass(frozen=True)
class TrendPoint:
    """The main coefficient of one criterion in one week (that week alone, or cumulative to it)."""

    #: ISO date of the week's Monday.
    week: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n_units: int
    status: str
    unreliable: bool


@dataclass(frozen=True)
class RaterPairs:
    """A label's rater pairs on the statistic of the dashboard's heatmap, by rater names."""

    statistic: str
    pairs: tuple[RaterPairEstimate, ...]


@dataclass(frozen=True)
class OffScaleValues:
    """Judgments of a label given outside its declared scale (imported ones), left out of every agreement figure."""

    n: int
    values: tuple[str, ...]


@dataclass(frozen=True)
class AgreementFacts:
    """The dashboard's agreement figures read from the stored snapshots of the latest week (cumulative window).
    Without snapshots ``week`` and the main statistic are None and the figures empty."""

    #: ISO date of the latest computed week.
    week: str | None
    main_statistic: str | None
    main_statistic_label: str | None
    #: The statistics of the per-criterion table, the main one first.
    label_columns: tuple[str, ...]
    #: Per label (a criterion's name, or its per-turn label), per statistic, the snapshot.
    labels: dict[str, dict[str, Estimate]]
    #: Per subgroup, per label, the main coefficient's snapshot.
    subgroups: dict[str, dict[str, Estimate]]
    #: Per label and window ("week", "cumulative"), the main coefficient's points in week order.
    trend: dict[str, dict[str, tuple[TrendPoint, ...]]]
    #: Per label with rater pairs.
    pairs: dict[str, RaterPairs]
    #: Per label's main coefficient, then per subgroup's: those unreliable or without a value.
    limitations: tuple[Limitation, ...]
    off_scale: dict[str, OffScaleValues]
    #: Statistic → its name in words, for every statistic the platform computes.
    statistic_labels: dict[str, str]
    #: Fewer units than this mark a figure unreliable.
    min_reliable_units: int


@dataclass(frozen=True)
class QcRuleVersion:
    """One version of the project's quality-control rules (0 turns a rule off) and the actions it took."""

    version: int
    gold_accuracy_threshold: float
    min_gold_answered: int
    #: What a rule does to a rater it catches: "warn", "pause" or "exclude".
    action: str
    min_seconds_per_judgment: float
    straight_line_run: int
    degraded_p_threshold: float
    min_degraded_answered: int
    #: Action kind → times taken under this version.
    actions: dict[str, int]


@dataclass(frozen=True)
class QcFacts:
    """Quality control without naming a rater or lead."""

    rules: tuple[QcRuleVersion, ...]
    #: Leads' own actions on raters: kind → times.
    manual_actions: dict[str, int]
    #: Audit-log action → times (exports left out).
    lead_actions: dict[str, int]


@dataclass(frozen=True)
class FileFacts:
    """One data file of the archive."""

    table: str
    format: str
    split: str
    #: Path in the archive.
    path: str
    rows: int


@dataclass(frozen=True)
class ColumnFacts:
    """A column of an exported table and what it means."""

    name: str
    description: str


@dataclass(frozen=True)
class SoftLabelFile:
    """A LeWiDi file (``evaluation.export.soft_labels``) of one categorical criterion."""

    criterion: str
    path: str
    units: int


@dataclass(frozen=True)
class SoftLabelFacts:
    """The LeWiDi files of the export (none for a task type without categorical answers)."""

    files: tuple[SoftLabelFile, ...]
    #: How the task type codes its categories ("" when it says nothing).
    category_note: str


@dataclass(frozen=True)
class ProfileFieldFacts:
    """A field of the project's rater profile form."""

    name: str
    kind: str
    sensitive: bool
    #: In ``data/rater_profiles.jsonl`` (a sensitive field only when the export asked for it).
    exported: bool


@dataclass(frozen=True)
class RaterProfileFacts:
    """The rater profiles file: its fields and how many raters (with judgments in the export) answered."""

    fields: tuple[ProfileFieldFacts, ...]
    n_raters: int


@dataclass(frozen=True)
class CardFacts:
    """Everything the card and the datasheet state."""

    project: ProjectFacts
    options: OptionFacts
    about: AboutFacts
    counts: CardCounts
    criteria: tuple[CriterionFacts, ...]
    #: Per criterion, each value (or bin of values) as the card labels it → judgments used for scores and
    #: agreement that gave it.
    label_distributions: dict[str, dict[str, int]]
    #: Per criterion with included judgments, its systems (means, or tallies of comparisons).
    systems: dict[str, tuple[SystemMean | SystemTally, ...]]
    agreement: AgreementFacts
    qc: QcFacts
    files: tuple[FileFacts, ...]
    #: Per exported table (items, judgments, scores, [spans,] raters[, votes]), its columns.
    tables: dict[str, tuple[ColumnFacts, ...]]
    #: The agreement trend chart's name in the archive; None without one.
    chart: str | None
    #: Only in an export with soft labels (left out of card.json otherwise).
    soft_labels: SoftLabelFacts | None = None
    #: Only for a project with a profile form (left out of card.json otherwise).
    rater_profiles: RaterProfileFacts | None = None


# Sections card.json leaves out, rather than writing null, when the export has none.
OPTIONAL_SECTIONS = ("soft_labels", "rater_profiles")


def card_json(facts: CardFacts) -> str:
    """``card.json``: the facts as JSON objects with their fields in declared order, sequences as arrays,
    the sections of OPTIONAL_SECTIONS left out when None."""
    data = asdict(facts)
    for name in OPTIONAL_SECTIONS:
        if data[name] is None:
            del data[name]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
