"""Reads of the qualification gate: whether a rater is kept from the real work, and how each rater did on
their training screens (first answers against the training items' gold)."""

from dataclasses import dataclass

from django.db.models import QuerySet

from annotation.models import Assignment, Item, Judgment, Project, QualificationOutcome
from annotation.selectors.judgment_spans import spans_by_judgment
from annotation.task_types import REGISTRY


def rater_not_admitted(*, project_id: int, rater_id: int) -> bool:
    """Whether the gate failed the rater and no lead has admitted them since. One query."""
    return QualificationOutcome.objects.filter(
        project_id=project_id, rater_id=rater_id, passed=False, admitted_at__isnull=True
    ).exists()


def qualification_outcome_list(project: Project) -> QuerySet[QualificationOutcome]:
    return QualificationOutcome.objects.filter(project=project).select_related("rater", "admitted_by")


@dataclass(frozen=True)
class TrainingAnswer:
    """One value of a training screen: the rater's first answer beside the gold (lead pages only)."""

    criterion: str
    system: str
    value: float
    label: str
    expected: str  # the gold, as written for a person
    right: bool | None  # None: the gold says nothing about this criterion and output


@dataclass(frozen=True)
class TrainingScreen:
    assignment_id: int
    item: str  # the training item's external id
    flagged: bool
    answers: tuple[TrainingAnswer, ...]

    @property
    def right(self) -> bool:
        """Answered (not flagged), with no first answer off the gold."""
        return not self.flagged and bool(self.answers) and all(a.right is not False for a in self.answers)


def gold_text(gold: dict, criterion: str, system: str, turn: int | None = None) -> str:
    """An item's gold answer for one criterion and output (or its assistant ``turn``), as a person writes it ("4",
    "2–3", "bart")."""
    expected = (gold or {}).get(criterion)
    if isinstance(expected, dict):
        expected = expected.get(system)
    if isinstance(expected, dict):  # per turn (likert in a project rating per turn)
        expected = None if turn is None else expected.get(str(turn))
    if isinstance(expected, list):
        return f"{expected[0]:g}–{expected[1]:g}"
    return "—" if expected is None else (f"{expected:g}" if isinstance(expected, int | float) else str(expected))


def training_screens(*, project: Project, rater_id: int) -> list[TrainingScreen]:
    """The rater's training screens served so far and not lapsed, in the order served, with their first
    answers (a revision after the feedback does not count). Two queries."""
    served = list(
        Assignment.objects.filter(project=project, rater_id=rater_id, served_as=Assignment.ServedAs.TRAINING)
        .exclude(status=Assignment.Status.EXPIRED)
        .order_by("served_at", "id")
        .values_list("id", "status", "item__external_id", "item__gold")
    )
    task_type = REGISTRY[project.task_type]
    rows = (
        Judgment.objects.filter(assignment_id__in=[a[0] for a in served])
        .values_list("assignment_id", "criterion__name", "output__system", "turn", "value", "label", "id")
        .order_by("submitted_at", "id")
    )
    rows = list(rows)
    spans = spans_by_judgment(row[-1] for row in rows) if task_type.reads_texts else {}
    first: dict[int, dict[tuple, TrainingAnswer]] = {}
    gold = {a[0]: a[3] or {} for a in served}
    for assignment_id, criterion, system, turn, value, label, judgment_id in rows:
        answers = first.setdefault(assignment_id, {})
        if (criterion, system, turn) not in answers:
            answers[(criterion, system, turn)] = TrainingAnswer(
                criterion,
                system if turn is None else f"{system}, turn {turn}",
                value,
                label,
                gold_text(gold[assignment_id], criterion, system, turn),
                task_type.gold_correct(gold[assignment_id], criterion, system, value, spans.get(judgment_id, ()), turn),
            )
    return [
        TrainingScreen(pk, external_id, status == Assignment.Status.SKIPPED, tuple(first.get(pk, {}).values()))
        for pk, status, external_id, _ in served
    ]


def training_target(project: Project) -> int:
    """Training screens each rater is served: the project's number, or the training pool if smaller."""
    if not project.training_items:
        return 0
    pool = Item.objects.filter(project=project, gold__isnull=False, training=True).count()
    return min(project.training_items, pool)
