"""What adjudication shows: the adjudicator's screen (the raters' answers unnamed, in a shuffled order) and the
lead's counts of the queue."""

import random
from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, F, Q
from django.utils import timezone

from annotation.conversations import assistant_turns
from annotation.models import AdjudicatedValue, AdjudicationCase, ErrorSpan, Project
from annotation.task_types import REGISTRY, Proposal
from annotation.task_types.facts import SPANS

from .assignments import proposed_span, screen_modulus
from .judgment_spans import spans_by_judgment
from .quality import included_judgments
from .rater_loop import criteria_of, outputs_of, screen_outputs_of


def _shown(value, criterion: dict) -> str:
    """An answer as the screen words it: the choice's value and label, or the number."""
    for choice in criterion["choices"] or []:
        if str(choice["value"]) == str(value):
            label = choice["label"]
            return label if str(value).lower() in label.lower() else f"{value} {label}".strip()
    return f"{value:g}" if isinstance(value, float) else str(value)


def adjudication_span_pool(case: AdjudicationCase) -> dict[int, tuple[Proposal, ...]]:
    """Per output id, the distinct error spans the case's raters marked on it (not the proposals they rejected),
    in offset order: the proposals the adjudicator accepts, edits or rejects, unnamed and numbered (``id``) as
    their screen lists them. Empty for a type without error spans."""
    if REGISTRY[case.project.task_type].values.kind != SPANS:
        return {}
    judgments = included_judgments(case.project).filter(item_id=case.item_id).values("id")
    rows = (
        ErrorSpan.objects.filter(judgment__in=judgments)
        .exclude(origin=ErrorSpan.Origin.REJECTED)
        .values_list("judgment__output_id", "side", "start", "end", "severity", "category")
        .distinct()
    )
    per_output = defaultdict(set)
    for output_id, *span in rows:
        per_output[output_id].add(tuple(span))
    return {
        output_id: tuple(Proposal(k, *span) for k, span in enumerate(sorted(spans)))
        for output_id, spans in per_output.items()
    }


def adjudication_screen(case: AdjudicationCase) -> dict:
    """The case's item with its outputs in imported order (no system names), the criteria as a rating screen
    asks them, and each rater's answers as ``Answer 1``, ``Answer 2``… in an order drawn from the case's own
    seed: nothing tells who answered what. Outputs of error-span types carry ``proposed_spans``: every rater's
    spans pooled, for the adjudicator to accept, edit or reject."""
    project = case.project
    task_type = REGISTRY[project.task_type]
    item = case.item
    references = list(item.references)
    criteria = [task_type.screen_criterion(c) for c in criteria_of(project.pk)]
    modulus = screen_modulus(project, references, criteria)
    by_name = {c["name"]: c for c in criteria}
    outputs = outputs_of(item.pk)
    positions = {pk: position for pk, position, _, _ in outputs}
    texts = {pk: text for pk, _, _, text in outputs}
    per_rater = defaultdict(list)
    judgments = list(
        included_judgments(project)
        .filter(item=item)
        .order_by("criterion__position", "output__position", F("turn").asc(nulls_first=True))
        .values_list("id", "rater_id", "criterion__name", "output_id", "value", "turn")
    )
    spans = spans_by_judgment(j[0] for j in judgments) if task_type.reads_texts else {}
    for judgment_id, rater_id, name, output_id, value, turn in judgments:
        answer = task_type.adjudication_answer(value, spans.get(judgment_id, ()))
        words = task_type.answer_words(answer, source=item.input, text=texts[output_id])
        per_rater[rater_id].append(
            {
                "criterion": name,
                "position": positions[output_id] if task_type.per_output else None,
                "value": answer,
                "shown": _shown(answer, by_name[name]) if words is None else words,
            }
            | ({} if turn is None else {"turn": turn})
        )
    raters = sorted(per_rater)
    random.Random(case.seed).shuffle(raters)
    pool = adjudication_span_pool(case)
    per_turn = project.rating_unit != Project.RatingUnit.CONVERSATION
    return {
        "case_id": case.pk,
        "item": {
            "input": item.input,
            "turns": item.turns,
            "references": references if project.show_reference else [],
            "modulus": modulus,
            "outputs": [
                {"position": p, "text": text, "turns": turns}
                | ({"proposed_spans": [proposed_span(s) for s in pool.get(pk, ())]} if task_type.reads_texts else {})
                | ({"rated_turns": assistant_turns(turns)} if per_turn else {})
                for pk, p, _, text, turns in screen_outputs_of(item.pk)
            ],
        },
        "criteria": criteria,
        "rating_unit": project.rating_unit,
        "disagreed_on": list(case.criteria),
        "answers": [{"answer": f"Answer {k}", "values": per_rater[r]} for k, r in enumerate(raters, start=1)],
        "expires_at": case.held_until,
    }


@dataclass(frozen=True)
class AdjudicationSummary:
    enabled: bool
    threshold: float | None
    n_cases: int
    n_adjudicated: int
    n_held: int

    @property
    def n_waiting(self) -> int:
        return self.n_cases - self.n_adjudicated


def adjudication_summary(project: Project) -> AdjudicationSummary:
    """The rule and the queue's counts: items queued, adjudicated, and held by an adjudicator now."""
    counts = AdjudicationCase.objects.filter(project=project).aggregate(
        n=Count("id"),
        done=Count("id", filter=Q(adjudicated_at__isnull=False)),
        held=Count("id", filter=Q(adjudicated_at__isnull=True, held_until__gt=timezone.now())),
    )
    return AdjudicationSummary(
        project.adjudicate, project.adjudication_threshold, counts["n"], counts["done"], counts["held"]
    )


def adjudicated_values(project: Project, *, max_item_id: int | None = None) -> dict[tuple[int, int], tuple]:
    """``(output id, criterion id) → (value, label)`` of every adjudicated answer in the project."""
    rows = AdjudicatedValue.objects.filter(case__project=project)
    if max_item_id is not None:
        rows = rows.filter(case__item_id__lte=max_item_id)
    return {(o, c): (v, label) for o, c, v, label in rows.values_list("output_id", "criterion_id", "value", "label")}
