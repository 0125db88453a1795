"""The tables of an export and their columns, per task type (the README data card describes them
from here, so the card and the files cannot drift apart)."""

from annotation.task_types import REGISTRY
from annotation.task_types.facts import COMPARED
from annotation.task_types.facts import SPANS as SPANS_KIND

from .writers import Column, TableSpec

ITEMS = TableSpec(
    "items",
    (
        Column("external_id", "string", "Item id as imported."),
        Column("input", "string", "Source text or dialogue context shown to raters."),
        Column(
            "turns",
            "json",
            "A conversation input's turns [{role, text}] as JSON (`input` then holds their plain-text rendering); "
            "null for plain text. A whole-conversation output's turns are in the JSONL's outputs (`turns`).",
        ),
        Column("references", "string_list", "Reference texts (may be empty)."),
        Column("outputs", "outputs", "The generated texts, in imported order: system name and text."),
        Column("subgroup", "string", "Data subgroup (empty when none)."),
        Column("meta", "json", "Free metadata as imported (JSON)."),
        Column("gold", "json", "Expected answers of a gold (control) item as JSON; null for ordinary items."),
    ),
    "One row per item, in the platform's item import format (a line re-imports as it is).",
)

_JUDGMENT_HEAD = (
    Column("item", "string", "external_id of the item."),
    Column("system", "string", "System of the output judged (pairwise: the item's first output as imported)."),
    Column("criterion", "string", "Criterion name."),
    Column(
        "rater",
        "string",
        "Rater pseudonym (rater-001… by first judgment), or username when exported with names.",
    ),
)
_JUDGMENT_TAIL = (
    Column("submitted_at", "timestamp", "When the judgment was submitted (UTC)."),
    Column("shown_order", "string_list", "Systems in the order this rater saw them (empty when not recorded)."),
    Column("duration_ms", "int", "Time on the screen in milliseconds, when recorded."),
    Column(
        "turn",
        "int",
        "The assistant turn judged, as its index (from 0) in the output's turns, in a project rating each turn of a "
        'conversation (the screens show index 2 of turns assistant, user, assistant as "assistant turn 2 (message '
        '3)"); null where the judgment is for the whole output.',
    ),
    Column("subgroup", "string", "The item's subgroup."),
)
_JUDGMENT_FLAGS = (
    Column("served_at", "timestamp", "When the screen was served, for judgments made on this platform."),
    Column("source", "string", "rater (made on this platform) or import (a study run elsewhere)."),
    Column("gold_item", "bool", "The item is a gold (control) item; left out of scores and agreement."),
    Column("retired_item", "bool", "The item was retired after this judgment: no longer served to raters."),
    Column("excluded", "bool", "The rater is excluded by quality control; left out of scores and agreement."),
)


ADJUDICATED = Column(
    "adjudicated",
    "label",
    "The adjudicator's answer for this item, output and criterion (and assistant turn, in a project rating per "
    "turn), as `value` gives answers (the same on every rater's row; null where the item was not adjudicated). Only "
    "in projects with an adjudication rule.",
)


def judgments_table(task_type: str, *, adjudicated: bool = False) -> TableSpec:
    values = REGISTRY[task_type].values
    value = Column("value", "label", values.export_description)
    extra = tuple(Column(*column) for column in values.export_columns)
    return TableSpec(
        "judgments",
        (*_JUDGMENT_HEAD, value, *_JUDGMENT_TAIL, *extra, *_JUDGMENT_FLAGS, *((ADJUDICATED,) if adjudicated else ())),
        "One row per individual judgment (current version); the first nine columns are the judgment import's fields.",
    )


def value_type(task_type: str) -> str:
    """Parquet type of the judgments' ``value``, as the task type declares it."""
    return REGISTRY[task_type].values.export_type


def scores_table(task_type: str) -> TableSpec:
    head = (
        Column("item", "string", "external_id of the item."),
        Column("system", "string", "System of the output."),
    )
    if REGISTRY[task_type].results.kind == COMPARED:
        columns = (
            *head,
            Column("opponent", "string", "The other system of the pair."),
            Column("criterion", "string", "Criterion name."),
            Column("subgroup", "string", "The item's subgroup."),
            Column("n", "int", "Judgments of the pair."),
            Column("wins", "int", "Judgments `system` won."),
            Column("ties", "int", "Ties."),
            Column("losses", "int", "Judgments `system` lost."),
            Column("win_rate", "float", "(wins + ties / 2) / n."),
        )
    else:
        columns = (
            *head,
            Column("criterion", "string", "Criterion name."),
            Column("subgroup", "string", "The item's subgroup."),
            Column("n", "int", "Judgments of the output on the criterion."),
            Column("mean", "float", "Mean rating (raw values)."),
            Column("sd", "float", "Sample standard deviation (null for one judgment)."),
            Column("min", "float", "Lowest rating."),
            Column("max", "float", "Highest rating."),
        )
    return TableSpec(
        "scores",
        columns,
        "Aggregated scores per output and criterion, from the judgments results use (no gold items, no "
        "excluded raters).",
    )


RATERS = TableSpec(
    "raters",
    (
        Column("rater", "string", "Rater pseudonym (or username when exported with names)."),
        Column("n_judgments", "int", "Judgments in this export."),
        Column("n_items", "int", "Items judged."),
        Column("n_gold_judgments", "int", "Judgments on gold (control) items."),
        Column("source", "string", "rater, import, or both: where the judgments were made."),
        Column("excluded", "bool", "Excluded by quality control."),
    ),
    "One row per rater: counts only, no personal data.",
)


VOTES = TableSpec(
    "votes",
    (
        Column("system_a", "string", "One system of the vote."),
        Column("system_b", "string", "The other system."),
        Column("winner", "string", "system_a's or system_b's name, tie, or tie (bothbad)."),
        Column(
            "rater",
            "string",
            "The voter's pseudonym (voter-001… in import order), or the judge id as imported when exported with "
            "names; null when the study had none.",
        ),
        Column("prompt", "string", "The prompt's id as imported (null when none)."),
        Column("submitted_at", "timestamp", "When the vote was cast (UTC), when the study recorded it."),
        Column("sampling_probability", "float", "Probability the pair was drawn with, when recorded."),
        Column("criterion", "string", "Criterion the votes were imported on."),
    ),
    "One row per pairwise vote imported from a finished study (`POST /api/v1/projects/{id}/votes/import/`), apart "
    "from the judgments: in Concord's vote import layout, so the file re-imports as it is.",
)

_SPAN_COLUMNS = (
    Column("item", "string", "external_id of the item."),
    Column("system", "string", "System of the output judged."),
    Column("criterion", "string", "Criterion name."),
    Column("rater", "string", "Rater pseudonym (or username when exported with names), as in the judgments."),
    Column("side", "string", "target (the output's text) or source (the item's input: a source-side error)."),
    Column("start", "int", "First position of the span, in Unicode code points (Python str indexes, not bytes "
           "or UTF-16 units) of the text as imported."),
    Column("end", "int", "Position after the span's last code point: [start, end); start = end marks "
           "something missing at that point."),
    Column("severity", "string", "Severity (e.g. minor, major; MQM also critical)."),
    Column("category", "string", "Error category from the project's typology (MQM; empty for ESA)."),
    Column("origin", "string", "added (marked by the rater), or how the rater answered a model's proposal: "
           "accepted, edited, or rejected (kept with the proposal's offsets; not an error the rater marked)."),
    Column("proposal", "int", "The answered proposal's index in its output's proposed_spans (items table, "
           "JSONL); empty for a span the rater added."),
)  # fmt: skip
_SPANS_DESCRIPTION = (
    "One row per error span of a current judgment in the judgments table (the same key: item, system, "
    "criterion, rater); a judgment without rows here marked no error."
)
ADJUDICATED_SPAN = Column(
    "adjudicated",
    "bool",
    "The span is the adjudicator's (rater empty): a span of the item's adjudicated answer, whose origin says how "
    "the adjudicator answered the raters' spans, pooled and unnamed (accepted, edited, rejected) or that they "
    "added it; proposal is empty. Only in projects with an adjudication rule.",
)


def spans_table(*, adjudicated: bool = False) -> TableSpec:
    """The spans table; with ``adjudicated``, the adjudicated answers' spans follow the raters' (flagged)."""
    return TableSpec(
        "spans",
        (*_SPAN_COLUMNS, *((ADJUDICATED_SPAN,) if adjudicated else ())),
        _SPANS_DESCRIPTION + (" Adjudicated spans are flagged in `adjudicated`." if adjudicated else ""),
    )


def has_spans(task_type: str) -> bool:
    """The task type's judgments carry error spans, exported in the spans table."""
    return REGISTRY[task_type].values.kind == SPANS_KIND
