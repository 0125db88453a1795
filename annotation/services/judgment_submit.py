"""Taking a rater's answers for one assignment: validated per task type, idempotent, revisable."""

import json
from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from annotation.models import Assignment, ErrorSpan, Item, Judgment, Membership, Output
from annotation.selectors.assignments import judgment_screen_values
from annotation.selectors.rater_loop import criteria_of, outputs_of, screen_outputs_of
from annotation.selectors.screen_plan import project_has_controls
from annotation.task_types import REGISTRY, Span

from .adjudication import adjudication_cases_open
from .assignment import LeaseGone, assignment_lock_for_rater, rater_admitted_check, rater_may_work_check
from .qualification import qualification_decide
from .quality import qc_rules_apply, training_feedback
from .screen_values import ScreenRow, rated_turns_of, screen_texts, screen_values_code

MAX_CLIENT_TOKEN = 64
MAX_DURATION_MS = 24 * 3600 * 1000


@dataclass(frozen=True)
class SubmittedJudgment:
    assignment: Assignment
    judgments: list[Judgment]
    created: bool  # False: a replay of an earlier submission with the same client token
    revision: bool  # True: it replaced the rater's earlier answers on this item
    # Training screens only: the expected answers as the screen takes them, and the item's explanation.
    feedback: dict | None = None
    # True: a replayed client token came with other values than the stored ones (which were kept).
    conflict: bool = False


def _check_lease(assignment: Assignment, now: datetime) -> None:
    if assignment.status == Assignment.Status.SKIPPED:
        raise LeaseGone("You flagged and skipped this item; it takes no judgment from you.")
    if assignment.status == Assignment.Status.EXPIRED or (
        assignment.status == Assignment.Status.ACTIVE and assignment.expires_at <= now
    ):
        raise LeaseGone(
            f"Your lease on this item ran out at {assignment.expires_at:%Y-%m-%d %H:%M:%S %Z}; "
            "the item may have gone to another rater. Ask for the next item."
        )


def _coded_rows(assignment: Assignment, values: list[dict]) -> tuple[list[ScreenRow], list[str]]:
    """((output, criterion, value, label, error spans) per judged value, systems as shown); raises
    ValidationError listing every problem."""
    project = assignment.project
    task_type = REGISTRY[project.task_type]
    rated_turns = None
    if project.rating_unit == project.RatingUnit.CONVERSATION:
        rows_of_outputs = outputs_of(assignment.item_id)
    else:
        with_turns = screen_outputs_of(assignment.item_id)
        rated_turns = rated_turns_of(project, with_turns)
        rows_of_outputs = [row[:4] for row in with_turns]
    texts = screen_texts(assignment.item, rows_of_outputs) if task_type.reads_texts else None
    outputs = [
        Output.from_db(
            connection.alias, ("id", "item_id", "position", "system"), (pk, assignment.item_id, position, system)
        )
        for pk, position, system, _ in rows_of_outputs
    ]
    systems = [o.system for o in outputs]
    order = assignment.shown_order or list(range(len(outputs)))
    shown = [systems[p] for p in order]
    rows = screen_values_code(
        project=assignment.project,
        criteria=criteria_of(assignment.project_id),
        outputs=outputs,
        shown=shown,
        values=values,
        texts=texts,
        rated_turns=rated_turns,
    )
    return rows, shown


def _same_answers(assignment: Assignment, values: list[dict], stored: list[Judgment]) -> bool:
    """Whether ``values`` are the ``stored`` answers as their screen gave them (a true retry), compared without
    coding them again so a replay stays as cheap as before; error spans are compared coded, spans and all."""
    task_type = REGISTRY[assignment.project.task_type]
    if task_type.reads_texts:
        return _same_spans(assignment, values, stored)
    per_output = task_type.per_output

    def key(entry: dict):
        # Position may be left out for a single output; it is not asked for pairwise.
        position = (entry.get("position") or 0) if per_output else None
        value = entry.get("value")
        number = isinstance(value, int | float) and not isinstance(value, bool)
        turn = str(entry.get("turn"))
        return str(entry.get("criterion")), str(position), turn, float(value) if number else json.dumps(value)

    if not all(isinstance(entry, dict) for entry in values):
        return False
    stored_values = judgment_screen_values(stored, assignment.project)
    if task_type.unanswered_value is not None:  # an output left unanswered is the same as one given that value
        values, stored_values = (
            [v for v in vs if v.get("value") != task_type.unanswered_value] for vs in (values, stored_values)
        )
    return Counter(map(key, values)) == Counter(map(key, stored_values))


def _same_spans(assignment: Assignment, values: list[dict], stored: list[Judgment]) -> bool:
    try:
        rows, _ = _coded_rows(assignment, values)
    except ValidationError:
        return False
    spans = {}
    for span in ErrorSpan.objects.filter(judgment__in=stored):
        spans.setdefault(span.judgment_id, []).append(
            Span(span.side, span.start, span.end, span.severity, span.category, span.origin, span.proposal_id)
        )
    given = sorted((r.output.pk, r.criterion.pk, r.value, r.label, tuple(sorted(r.spans, key=repr))) for r in rows)
    kept = sorted(
        (j.output_id, j.criterion_id, j.value, j.label, tuple(sorted(spans.get(j.pk, ()), key=repr))) for j in stored
    )
    return given == kept


@transaction.atomic
def judgment_submit(
    *,
    rater,
    assignment_id: int,
    values: list[dict],
    client_token: str = "",
    duration_ms: int | None = None,
    now: datetime | None = None,
) -> SubmittedJudgment:
    """Stores the rater's answers for every criterion (× output) of the assignment's screen.

    The same ``client_token`` again returns the stored rows and writes nothing (with ``conflict`` set when
    the values differ from the stored ones). Answering an
    assignment already done is a revision: the earlier rows stay, no longer current. The
    rater's membership row and then the assignment row are locked first (the lock order of
    annotation.services.assignment), so duplicate or racing submissions of one assignment queue, and a lead
    removing or pausing the rater meanwhile either waits for the submission or has it refused.
    Raises RaterRefused subclasses (404, 403, 409, 410) or ValidationError (400).
    """
    now = now or timezone.now()
    if len(client_token) > MAX_CLIENT_TOKEN:
        raise ValidationError({"client_token": f"at most {MAX_CLIENT_TOKEN} characters"})
    if duration_ms is not None and not 0 <= duration_ms <= MAX_DURATION_MS:
        raise ValidationError({"duration_ms": f"must be 0 to {MAX_DURATION_MS}"})
    assignment, role, is_paused = assignment_lock_for_rater(rater=rater, assignment_id=assignment_id)
    # An active assignment has no judgment yet (its first submission closes it), so the token
    # look-up and the revision update below are only needed once it is done.
    answered_before = assignment.status == Assignment.Status.DONE
    if client_token and answered_before:
        stored = list(
            Judgment.objects.filter(assignment=assignment, client_token=client_token)
            .select_related("criterion", "output")
            .order_by("id")
        )
        if stored:
            return SubmittedJudgment(
                assignment,
                stored,
                created=False,
                revision=False,
                conflict=not _same_answers(assignment, values, stored),
            )
    rater_may_work_check(project=assignment.project, role=role, is_paused=is_paused)
    rater_admitted_check(project=assignment.project, rater_id=rater.pk)
    _check_lease(assignment, now)
    rows, shown = _coded_rows(assignment, values)

    n_replaced = answered_before and Judgment.objects.filter(
        item_id=assignment.item_id, rater=rater, is_current=True
    ).update(is_current=False)
    # Values were checked by the task type above; Judgment.clean() would re-read each output per row.
    judgments = Judgment.objects.bulk_create(
        [
            Judgment(
                project_id=assignment.project_id,
                item_id=assignment.item_id,
                output=row.output,
                criterion=row.criterion,
                turn=row.turn,
                rater=rater,
                assignment=assignment,
                value=row.value,
                label=row.label,
                shown_order=shown,
                source=Judgment.Source.RATER,
                client_token=client_token,
                served_at=assignment.served_at,
                submitted_at=now,
                duration_ms=duration_ms,
                is_current=True,
                sampling_probability=assignment.sampling_probability,
            )
            for row in rows
        ]
    )
    ErrorSpan.objects.bulk_create(
        [
            ErrorSpan(
                judgment=judgment,
                proposal_id=s.proposal,
                side=s.side,
                start=s.start,
                end=s.end,
                severity=s.severity,
                category=s.category,
                origin=s.origin,
            )
            for judgment, row in zip(judgments, rows, strict=True)
            for s in row.spans
        ]
    )

    counters = {}
    if not n_replaced:
        counters["n_judged"] = F("n_judged") + 1
    if assignment.status == Assignment.Status.ACTIVE:
        counters["n_leased"] = F("n_leased") - 1
        assignment.status, assignment.completed_at = Assignment.Status.DONE, now
        assignment.save(update_fields=["status", "completed_at"])
    if counters:
        Item.objects.filter(pk=assignment.item_id).update(**counters)
    adjudication_cases_open(project=assignment.project, item_ids=[assignment.item_id], now=now)
    feedback = None
    if assignment.served_as == Assignment.ServedAs.TRAINING:
        feedback = training_feedback(assignment, shown)
        if not n_replaced:
            Membership.objects.filter(project_id=assignment.project_id, user=rater).update(
                training_done=F("training_done") + 1
            )
            if assignment.project.training_pass_mark:
                qualification_decide(project=assignment.project, rater=rater, now=now)
    # In a project with controls the rules are checked after every screen but training (which counts in no
    # rule), the same work whatever the screen was, so that neither the time of the answer nor when an
    # action comes tells a control from work. A project without controls keeps its submissions free of them.
    elif project_has_controls(assignment.project):
        qc_rules_apply(project=assignment.project, rater_id=rater.pk, now=now)
    return SubmittedJudgment(assignment, judgments, created=True, revision=bool(n_replaced), feedback=feedback)
