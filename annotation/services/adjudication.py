"""Adjudication: the lead's rule, the queue of items whose raters disagree under it, and the one answer an
adjudicator gives per item (stored apart from the judgments, which never change)."""

import math
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from annotation.models import (
    AdjudicatedSpan,
    AdjudicatedValue,
    AdjudicationCase,
    ErrorSpan,
    Membership,
    Output,
    Project,
)
from annotation.selectors.adjudication import adjudication_span_pool
from annotation.selectors.quality import included_judgments
from annotation.selectors.rater_loop import criteria_of, outputs_of, screen_outputs_of
from annotation.task_types import REGISTRY
from annotation.task_types.facts import SPANS_APART
from audit.services import audit_record

from .assignment import NotARater, ProjectNotFound, ProjectNotLive, RaterRefused
from .screen_values import rated_turns_of, screen_texts, screen_values_code

# Far beyond any scale a project takes, and small enough that a difference of two values stays finite.
MAX_THRESHOLD = 1e12


class NotAnAdjudicator(NotARater):
    """A member who is not the project's adjudicator asked for adjudication (403)."""


class AlreadyAdjudicated(RaterRefused):
    status_code = 409


class CaseNotFound(RaterRefused):
    status_code = 404


class CaseHeldByAnother(RaterRefused):
    status_code = 409


@dataclass(frozen=True)
class AdjudicationRule:
    """A project's rule: on or off, and how far apart one output's values on one criterion may be (None: any
    difference disagrees)."""

    enabled: bool
    threshold: float | None


def adjudication_rule_check(project: Project, *, enabled, threshold) -> AdjudicationRule:
    """The rule as given, checked against the project's task type; raises ValidationError naming the field."""
    if not isinstance(enabled, bool):
        raise ValidationError({"enabled": f"must be true or false, got {enabled!r}"})
    if enabled and not REGISTRY[project.task_type].values.adjudicated:
        raise ValidationError(
            {
                "enabled": f"{project.task_type} answers cannot be adjudicated yet: the adjudicator's screen does not "
                "take them"
            }
        )
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise ValidationError({"threshold": f"must be a number or null, got {threshold!r}"})
        # The range first: isfinite overflows on a huge int (NaN fails the range too).
        if not 0 <= threshold <= MAX_THRESHOLD or not math.isfinite(threshold):
            raise ValidationError(
                {"threshold": f"must be a finite number from 0 to {MAX_THRESHOLD:g}, got {threshold!r}"}
            )
        if not REGISTRY[project.task_type].values.takes_threshold:
            raise ValidationError(
                {
                    "threshold": f"a {project.task_type} project's values are categories: its "
                    "rule is that they differ, and takes no threshold"
                }
            )
        threshold = float(threshold)
    return AdjudicationRule(enabled, threshold)


@transaction.atomic
def adjudication_rule_set(*, project: Project, rule: AdjudicationRule, by=None, now: datetime | None = None) -> int:
    """Stores the rule and queues every item that disagrees under it now; returns how many were queued.
    Cases already open stay, whatever the new rule says."""
    project.adjudicate, project.adjudication_threshold = rule.enabled, rule.threshold
    project.save(update_fields=["adjudicate", "adjudication_threshold"])
    audit_record(
        actor=by,
        action="adjudication.rule",
        project=project,
        detail={"enabled": rule.enabled, "threshold": rule.threshold},
    )
    return adjudication_cases_open(project=project, now=now)


def adjudication_cases_open(*, project: Project, item_ids=None, now: datetime | None = None) -> int:
    """Queues the items (of ``item_ids``, else all) whose included judgments disagree under the project's
    rule and that never had a case; returns how many were queued. Free when the rule is off."""
    if not project.adjudicate:
        return 0
    values = REGISTRY[project.task_type].values
    judgments = (
        included_judgments(project).filter(item__retired_at__isnull=True, item__adjudication_case=None).order_by()
    )
    if item_ids is not None:
        judgments = judgments.filter(item_id__in=list(item_ids))
    spans = _marked_spans(judgments) if values.disagreement == SPANS_APART else {}
    # a unit is one output's answers on one criterion, and in a project rating per turn one assistant turn's
    per_unit = defaultdict(list)
    for judgment_id, item_id, output_id, criterion_name, turn, value in judgments.values_list(
        "id", "item_id", "output_id", "criterion__name", "turn", "value"
    ).iterator(chunk_size=10_000):
        per_unit[item_id, output_id, criterion_name, turn].append((value, spans.get(judgment_id, ())))
    disagreeing = defaultdict(set)
    for (item_id, _, criterion_name, _), unit in per_unit.items():
        if values.disagree([v for v, _ in unit], project.adjudication_threshold, [s for _, s in unit]):
            disagreeing[item_id].add(criterion_name)
    now = now or timezone.now()
    created = AdjudicationCase.objects.bulk_create(
        [
            AdjudicationCase(project=project, item_id=item_id, criteria=sorted(names), opened_at=now)
            for item_id, names in sorted(disagreeing.items())
        ],
        ignore_conflicts=True,
    )
    return len(created)


def _marked_spans(judgments) -> dict[int, tuple[tuple[str, int, int], ...]]:
    """(side, start, end) of the spans each judgment marked (not the proposals it rejected), by judgment id."""
    out = defaultdict(list)
    rows = ErrorSpan.objects.filter(judgment__in=judgments.values("id")).exclude(origin=ErrorSpan.Origin.REJECTED)
    for judgment_id, *span in rows.values_list("judgment_id", "side", "start", "end").iterator(chunk_size=10_000):
        out[judgment_id].append(tuple(span))
    return {k: tuple(v) for k, v in out.items()}


def _adjudicator_project(*, project_id: int, user, lock: bool = False) -> Project:
    """The project if ``user`` adjudicates it and it is not a draft or archived; raises a RaterRefused."""
    membership = Membership.objects.select_related("project").filter(project_id=project_id, user=user)
    if lock:
        membership = membership.select_for_update(of=("self",))
    membership = membership.first()
    if membership is None or (
        membership.role != Membership.Role.LEAD and membership.project.status == Project.Status.DRAFT
    ):
        raise ProjectNotFound("No such project.")
    if membership.role != Membership.Role.ADJUDICATOR:
        raise NotAnAdjudicator("Only the project's adjudicators are served the adjudication queue.")
    if membership.project.is_archived:
        raise ProjectNotLive("This project is archived: it takes no adjudication.")
    return membership.project


@transaction.atomic
def adjudication_next(*, project_id: int, adjudicator, now: datetime | None = None) -> AdjudicationCase | None:
    """The adjudicator's case: the one they hold, else the oldest open case no one holds (leased to them for
    the project's lease time); None when the queue is empty. Cases another transaction is taking are
    skipped, never waited for."""
    now = now or timezone.now()
    project = _adjudicator_project(project_id=project_id, user=adjudicator, lock=True)
    open_cases = AdjudicationCase.objects.filter(project=project, adjudicated_at__isnull=True)
    case = open_cases.filter(held_by=adjudicator, held_until__gt=now).select_related("item").first()
    if case is not None:
        return case
    free = open_cases.exclude(held_by__isnull=False, held_until__gt=now)
    case = free.select_for_update(skip_locked=True, of=("self",)).select_related("item").order_by("id").first()
    if case is None:
        return None
    case.held_by, case.held_until = adjudicator, now + timedelta(seconds=project.lease_seconds)
    case.save(update_fields=["held_by", "held_until"])
    return case


def adjudication_case_check(*, adjudicator, case_id: int, lock: bool = False) -> AdjudicationCase:
    """The case, if ``adjudicator`` adjudicates its project; raises a RaterRefused (404 for a case they may not
    know of). With ``lock`` the case row stays locked until the transaction ends."""
    cases = AdjudicationCase.objects.filter(pk=case_id)
    case = (cases.select_for_update(of=("self",)) if lock else cases).first()
    if case is None:
        raise CaseNotFound(f"There is no adjudication case {case_id}.")
    case.project = _adjudicator_project(project_id=case.project_id, user=adjudicator)
    return case


@transaction.atomic
def adjudication_submit(
    *, adjudicator, case_id: int, values: list[dict], now: datetime | None = None
) -> list[AdjudicatedValue]:
    """Stores the adjudicator's answer to every criterion (× output) of the case's item, shown in imported
    order. One answer per case: a second one is refused (409), as is a case another adjudicator holds."""
    now = now or timezone.now()
    case = adjudication_case_check(adjudicator=adjudicator, case_id=case_id, lock=True)
    project = case.project
    if case.adjudicated_at is not None:
        raise AlreadyAdjudicated("This item has been adjudicated already; its answer stays as it was given.")
    if case.held_by_id not in (None, adjudicator.pk) and case.held_until > now:
        raise CaseHeldByAnother("Another adjudicator holds this item now; ask for the next one.")
    rated_turns = None
    if project.rating_unit == Project.RatingUnit.CONVERSATION:
        rows_of_outputs = outputs_of(case.item_id)
    else:  # the adjudicator answers each assistant turn (and the whole output) as the raters did
        with_turns = screen_outputs_of(case.item_id)
        rated_turns = rated_turns_of(project, with_turns)
        rows_of_outputs = [row[:4] for row in with_turns]
    outputs = [
        Output.from_db(connection.alias, ("id", "item_id", "position", "system"), (pk, case.item_id, position, system))
        for pk, position, system, _ in rows_of_outputs
    ]
    task_type = REGISTRY[project.task_type]
    texts = None
    if task_type.reads_texts:
        # The raters' spans, pooled, are the proposals the adjudicator answers (the model's were the raters').
        pool = adjudication_span_pool(case)
        proposals = {system: pool.get(pk, ()) for pk, _, system, _ in rows_of_outputs}
        texts = replace(screen_texts(case.item, rows_of_outputs), proposals=proposals)
    rows = screen_values_code(
        project=project,
        criteria=criteria_of(project.pk),
        outputs=outputs,
        shown=[o.system for o in outputs],
        values=values,
        texts=texts,
        rated_turns=rated_turns,
    )
    stored = AdjudicatedValue.objects.bulk_create(
        [
            AdjudicatedValue(
                case=case, output=row.output, criterion=row.criterion, turn=row.turn, value=row.value, label=row.label
            )
            for row in rows
        ]
    )
    AdjudicatedSpan.objects.bulk_create(
        AdjudicatedSpan(
            value=adjudicated,
            side=s.side,
            start=s.start,
            end=s.end,
            severity=s.severity,
            category=s.category,
            origin=s.origin,
        )
        for adjudicated, row in zip(stored, rows, strict=True)
        for s in row.spans
    )
    case.adjudicator, case.adjudicated_at, case.held_until = adjudicator, now, None
    case.save(update_fields=["adjudicator", "adjudicated_at", "held_until"])
    return stored
