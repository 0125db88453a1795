"""One rater's quality evidence for the lead's rater page: each measure of annotation.selectors.quality with
the answers behind it (which items, the rater's answers beside the gold or the original). For project leads
only: it names gold items, their answers and which screens were controls."""

import statistics
from dataclasses import dataclass

from scipy.stats import binomtest

from annotation.models import Assignment, ItemFlag, Judgment, Project, QualificationOutcome
from annotation.selectors.judgment_spans import spans_by_judgment
from annotation.selectors.qualification import TrainingScreen, gold_text, training_screens
from annotation.selectors.quality import (
    SPEED_WINDOW,
    BehaviourFlags,
    ControlFlags,
    DegradedCheck,
    GoldAccuracy,
    RepeatConsistency,
    behaviour_flags,
    control_flags,
    degraded_check,
    gold_accuracy,
    position_bias,
    qc_rules_current,
    repeat_consistency,
)
from annotation.task_types import REGISTRY
from annotation.task_types.facts import CONTINUOUS, OUTCOME

# Rows of evidence shown per measure; the counts above them cover everything.
EVIDENCE_ROWS = 200


@dataclass(frozen=True)
class AnswerRow:
    item: str
    criterion: str
    system: str
    given: str
    expected: str  # the gold, or the answer on the original (repeats, degraded copies)
    right: bool | None
    note: str = ""


@dataclass(frozen=True)
class ScreenRow:
    item: str
    served_as: str
    seconds: float | None
    fast: bool


@dataclass(frozen=True)
class FlagRow:
    item: str
    served_as: str
    reason: str
    comment: str
    at: object


@dataclass(frozen=True)
class RaterEvidence:
    gold: GoldAccuracy
    gold_interval: tuple[float, float] | None  # Wilson 95 % interval of the accuracy
    gold_answers: list[AnswerRow]
    degraded: DegradedCheck | None
    degraded_answers: list[AnswerRow]
    repeats: RepeatConsistency | None
    repeat_answers: list[AnswerRow]
    position_bias: dict | None
    position_bias_note: str  # what to say where position bias is not measured
    behaviour: BehaviourFlags
    median_seconds: float | None
    recent_screens: list[ScreenRow]
    control_flags: ControlFlags
    flags: list[FlagRow]
    training: list[TrainingScreen]
    qualification: QualificationOutcome | None


def _shown(pairwise: bool, value: float, label: str) -> str:
    return label if pairwise else f"{value:g}"


def _gold_answers(project: Project, rater_id: int) -> list[AnswerRow]:
    """First answers on gold checks (as gold_accuracy counts them), with revisions noted."""
    task_type = REGISTRY[project.task_type]
    pairwise = task_type.values.kind == OUTCOME
    rows = (
        Judgment.objects.filter(project=project, rater_id=rater_id, item__gold__isnull=False, item__training=False)
        .exclude(assignment__served_as=Assignment.ServedAs.TRAINING)
        .values_list(
            "item__external_id", "item__gold", "criterion__name", "output__system", "turn", "value", "label", "id"
        )
        .order_by("submitted_at", "id")
    )
    rows = list(rows)
    spans = spans_by_judgment(row[-1] for row in rows) if task_type.reads_texts else {}
    first: dict[tuple, AnswerRow] = {}
    for item, gold, criterion, system, turn, value, label, judgment_id in rows:
        key = (item, criterion, system, turn)
        if key in first:
            first[key] = AnswerRow(**{**first[key].__dict__, "note": "revised later (the first answer counts)"})
            continue
        first[key] = AnswerRow(
            item,
            criterion,
            system if turn is None else f"{system}, turn {turn}",
            _shown(pairwise, value, label),
            gold_text(gold, criterion, system, turn),
            task_type.gold_correct(gold or {}, criterion, system, value, spans.get(judgment_id, ()), turn),
        )
    return list(first.values())


def _copy_answers(project: Project, rater_id: int, copy_field: str) -> list[AnswerRow]:
    """The rater's current answers on quality-control copies (``degraded_from`` or ``repeat_of``) beside
    their answers on the originals."""
    pairwise = REGISTRY[project.task_type].values.kind == OUTCOME
    continuous = REGISTRY[project.task_type].values.kind == CONTINUOUS
    mine = Judgment.objects.filter(project=project, rater_id=rater_id, is_current=True)
    copies = list(
        mine.filter(**{f"item__{copy_field}__isnull": False})
        .values_list(
            "item__external_id",
            f"item__{copy_field}_id",
            "item__meta",
            "criterion__name",
            "output__system",
            "value",
            "label",
        )
        .order_by("item_id", "criterion__position")
    )
    originals = {
        (item, criterion, system): (value, label)
        for item, criterion, system, value, label in mine.filter(item_id__in={c[1] for c in copies}).values_list(
            "item_id", "criterion__name", "output__system", "value", "label"
        )
    }
    out = []
    for external_id, original_id, meta, criterion, system, value, label in copies[:EVIDENCE_ROWS]:
        before = originals.get((original_id, criterion, system))
        note = (meta or {}).get("method", "").replace("_", " ")
        if pairwise and copy_field == "degraded_from":
            # The copy's first output is the intact original: it should win.
            right = None if label == "tie" else label == system
            out.append(
                AnswerRow(
                    external_id,
                    criterion,
                    "intact vs damaged",
                    "tie" if label == "tie" else ("intact side" if right else "damaged side"),
                    "intact side",
                    right,
                    note,
                )
            )
            continue
        expected = "not judged" if before is None else _shown(pairwise, *before)
        if before is None:
            same = None
        elif copy_field == "degraded_from":
            same = value < before[0]
        elif continuous:  # near enough counts as the same (repeat_consistency's tolerance)
            same, note = None, "the consistency above counts scores within a tenth of the scale as the same"
        else:
            same = before[0] == value
        out.append(
            AnswerRow(
                external_id,
                criterion,
                system.removesuffix(" (degraded)"),
                _shown(pairwise, value, label),
                expected,
                same,
                note,
            )
        )
    return out


def _recent_screens(project: Project, rater_id: int, min_seconds: float) -> tuple[list[ScreenRow], float | None]:
    """The rater's last SPEED_WINDOW answered screens (newest first) with their times, and their median time
    over all answered screens."""
    rows = list(
        Judgment.objects.filter(project=project, rater_id=rater_id, is_current=True)
        .values_list("item_id", "item__external_id", "assignment__served_as", "duration_ms")
        .distinct()
        .order_by()
    )
    durations = [d / 1000 for _, _, _, d in rows if d is not None]
    recent = (
        Assignment.objects.filter(project=project, rater_id=rater_id, status=Assignment.Status.DONE)
        .order_by("-completed_at")
        .values_list("item_id", flat=True)[:SPEED_WINDOW]
    )
    by_item = {item_id: (external_id, served_as, d) for item_id, external_id, served_as, d in rows}
    screens = []
    for item_id in recent:
        if item_id in by_item:
            external_id, served_as, duration = by_item[item_id]
            seconds = None if duration is None else duration / 1000
            screens.append(
                ScreenRow(
                    external_id,
                    served_as or "work",
                    seconds,
                    bool(min_seconds and seconds is not None and seconds < min_seconds),
                )
            )
    return screens, statistics.median(durations) if durations else None


def rater_evidence(project: Project, rater_id: int) -> RaterEvidence:
    """Everything the lead's page on one rater shows. The measures are the QC page's (one rater's share of
    them); position bias is computed over the project, as its chance rate is."""
    rules = qc_rules_current(project)
    gold = gold_accuracy(project, rater_id=rater_id).get(rater_id, GoldAccuracy())
    interval = None
    if gold.n:
        ci = binomtest(gold.correct, gold.n).proportion_ci(confidence_level=0.95, method="wilson")
        interval = (float(ci.low), float(ci.high))
    _, bias = position_bias(project)
    screens, median = _recent_screens(project, rater_id, rules.min_seconds_per_judgment if rules else 0)
    flags = [
        FlagRow(external_id, served_as or "work", ItemFlag.Reason(reason).label, comment, at)
        for external_id, served_as, reason, comment, at in ItemFlag.objects.filter(project=project, rater_id=rater_id)
        .values_list("item__external_id", "assignment__served_as", "reason", "comment", "created_at")
        .order_by("-created_at")[:EVIDENCE_ROWS]
    ]
    return RaterEvidence(
        gold=gold,
        gold_interval=interval,
        gold_answers=_gold_answers(project, rater_id)[:EVIDENCE_ROWS],
        degraded=degraded_check(project, rater_id=rater_id).get(rater_id),
        degraded_answers=_copy_answers(project, rater_id, "degraded_from"),
        repeats=repeat_consistency(project).get(rater_id),
        repeat_answers=_copy_answers(project, rater_id, "repeat_of"),
        position_bias=bias[rater_id].as_dict() if rater_id in bias else None,
        position_bias_note=REGISTRY[project.task_type].position_bias_note,
        behaviour=behaviour_flags(project, rules, rater_id=rater_id).get(rater_id, BehaviourFlags()),
        median_seconds=median,
        recent_screens=screens,
        control_flags=control_flags(project, rater_id=rater_id).get(rater_id, ControlFlags(0, 0)),
        flags=flags,
        training=training_screens(project=project, rater_id=rater_id),
        qualification=QualificationOutcome.objects.filter(project=project, rater_id=rater_id)
        .select_related("admitted_by")
        .first(),
    )


def rater_in_project(project: Project, rater_id: int) -> bool:
    """Whether the user is or was a rater of the project: a member with the rater role, or one quality control
    still holds a record of (an exclusion or a gate outcome) after they left the team."""
    return (
        project.memberships.filter(user_id=rater_id, role="rater").exists()
        or project.rater_exclusions.filter(rater_id=rater_id).exists()
        or project.qualification_outcomes.filter(rater_id=rater_id).exists()
    )
