"""What raters see: the rating screen of an assignment, their earlier answers, and progress."""

from django.db.models import Count, Exists, F, Max, OuterRef, Q

from annotation.conversations import assistant_turns, turn_labels
from annotation.models import Assignment, Item, ItemFlag, Judgment, Membership, Project, ProposedSpan
from annotation.task_types import REGISTRY, Proposal
from annotation.task_types.pairwise import TIE

from .allocation import allocation_limits, allocation_open, quota_left
from .judgment_spans import spans_by_judgment
from .rater_loop import criteria_of, outputs_of, proposals_of, screen_outputs_of
from .screen_plan import project_has_controls, screen_plan


def assignment_screen(assignment: Assignment) -> dict:
    """The screen in display order: input, outputs by display position (no system names), criteria.

    Gold answers, item metadata and other raters' judgments are not part of it.
    """
    project = assignment.project
    task_type = REGISTRY[project.task_type]
    shown = getattr(assignment, "screen_outputs", None)  # set by assignment_next_for_rater on a new lease
    if shown is None:
        texts = {position: (text, turns) for _, position, _, text, turns in screen_outputs_of(assignment.item_id)}
        shown = [texts[position] for position in (assignment.shown_order or sorted(texts))]
    item = assignment.item
    references = list(item.references)
    criteria = [task_type.screen_criterion(c) for c in criteria_of(project.pk)]
    modulus = screen_modulus(project, references, criteria)
    outputs = [
        {"position": position, "text": text} | ({"turns": turns} if turns else {})
        for position, (text, turns) in enumerate(shown)
    ]
    if project.rating_unit != project.RatingUnit.CONVERSATION:
        for output in outputs:
            output["rated_turns"] = assistant_turns(output.get("turns"))
    if task_type.reads_texts:
        _add_proposals(assignment, outputs)
    return {
        "assignment_id": assignment.pk,
        "item": {
            "input": item.input,
            "turns": item.turns,
            "references": references if project.show_reference else [],
            "modulus": modulus,
            "outputs": outputs,
        },
        "criteria": criteria,
        "rating_unit": project.rating_unit,
        "expires_at": assignment.expires_at,
    }


def _add_proposals(assignment: Assignment, outputs: list[dict]) -> None:
    """Each output's ``proposed_spans`` (a model's, for the rater to accept, edit or reject), in the order an
    answer numbers them."""
    proposals = proposals_of(assignment.item_id)
    ids = {position: pk for pk, position, _, _ in outputs_of(assignment.item_id)}
    order = assignment.shown_order or sorted(ids)
    for output, position in zip(outputs, order, strict=True):
        output["proposed_spans"] = [proposed_span(p) for p in proposals.get(ids[position], ())]


def proposed_span(p: Proposal) -> dict:
    """A proposal as a screen's ``proposed_spans`` lists it."""
    return {"side": p.side, "start": p.start, "end": p.end, "severity": p.severity, "category": p.category}


def screen_modulus(project: Project, references: list[str], criteria: list[dict]) -> dict | None:
    """RankME with a modulus: the reference output raters score against ({text, score}), taken off
    ``references`` (the first; the import requires one), with the ``criteria`` made unbounded."""
    if project.rankme_modulus is None:
        return None
    for criterion in criteria:
        criterion.update(scale_min=None, scale_max=None)
    return {"text": references.pop(0) if references else "", "score": project.rankme_modulus}


def screen_questions(*, screen: dict, task_type, answers: dict | None = None, config: dict | None = None) -> dict:
    """What a rating template iterates over: ``outputs`` (each with its ``questions``), every question,
    and ``pair_questions`` (one per criterion, for task types judging the screen as a whole); each
    question names its form field and carries the rater's earlier ``answer``, and what the task type adds for
    the project's ``config`` (its task_config)."""
    answers = answers if answers is not None else {}
    outputs = screen["item"]["outputs"]
    modulus = (screen["item"].get("modulus") or {}).get("score")
    whole = screen.get("rating_unit", "conversation") != "turn"
    questions = []
    for criterion in screen["criteria"]:
        slots = outputs if task_type.per_output else [None]
        for output in slots:
            turns = (output or {}).get("rated_turns")
            for turn in ([None] if whole or turns is None else []) + list(turns or ()):
                key = (
                    f"{criterion['id']}"
                    + ("" if output is None else f"-{output['position']}")
                    + ("" if turn is None else f"-t{turn}")
                )
                question = {
                    "criterion": criterion,
                    "output": output,
                    "turn": turn,
                    "field": f"v-{key}",
                    "answer": answers.get(key),
                }
                question.update(task_type.question_fields(question, modulus, config or {}))
                questions.append(question)
    for output in outputs:
        output["questions"] = [q for q in questions if q["output"] is output and q["turn"] is None]
        if "rated_turns" in output:
            labels = turn_labels(output["turns"])
            output["turn_rows"] = [
                turn
                | {
                    "index": k,
                    "label": labels.get(k),
                    "questions": [q for q in questions if q["output"] is output and q["turn"] == k],
                }
                for k, turn in enumerate(output["turns"])
            ]
    return {
        "outputs": outputs,
        "questions": questions,
        "letters": "AB",
        "pair_questions": [q for q in questions if q["output"] is None],
    }


def assignment_get_for_rater(*, rater, pk: int) -> Assignment | None:
    return Assignment.objects.select_related("project", "item").filter(pk=pk, rater=rater).first()


def _proposal_index(judgments) -> dict[int, int]:
    """The index of each proposal of the judgments' outputs as a screen lists them, by ProposedSpan id."""
    index: dict[int, int] = {}
    counts: dict[int, int] = {}
    for pk, output_id in ProposedSpan.objects.filter(output_id__in={j.output_id for j in judgments}).values_list(
        "id", "output_id"
    ):
        index[pk] = counts[output_id] = counts.get(output_id, -1) + 1
    return index


def judgment_screen_values(judgments, project: Project) -> list[dict]:
    """Stored judgment rows as a screen gives them: criterion, display position, value ("A"/"B"/"tie"
    for pairwise; the answer with its error spans for types that read texts)."""
    task_type = REGISTRY[project.task_type]
    spans, proposal_index = (
        (spans_by_judgment(j.pk for j in judgments), _proposal_index(judgments)) if task_type.reads_texts else ({}, {})
    )
    values = []
    for j in judgments:
        shown = list(j.shown_order or [])
        if not REGISTRY[project.task_type].per_output:
            value = TIE if j.label == TIE else ("A" if shown and j.label == shown[0] else "B")
            values.append({"criterion": j.criterion.name, "position": None, "value": value})
            continue
        position = shown.index(j.output.system) if j.output.system in shown else j.output.position
        value = task_type.stored_answer(j.value, spans.get(j.pk, ()), proposal_index)
        turn = {} if j.turn is None else {"turn": j.turn}
        values.append({"criterion": j.criterion.name, "position": position, **turn, "value": value})
    return values


def assignment_answers(assignment: Assignment) -> dict[str, object]:
    """The rater's current answers on the assignment's item, keyed ``"<criterion id>-<display position>"``
    (``"<criterion id>"`` for pairwise; ``…-t<turn>`` for an assistant turn's), as the rating form names its
    fields."""
    judgments = Judgment.objects.filter(
        item_id=assignment.item_id, rater_id=assignment.rater_id, is_current=True
    ).select_related("criterion", "output")
    answers = {}
    for j, v in zip(judgments, judgment_screen_values(judgments, assignment.project), strict=True):
        key = str(j.criterion_id) if v["position"] is None else f"{j.criterion_id}-{v['position']}"
        answers[key if j.turn is None else f"{key}-t{j.turn}"] = v["value"]
    return answers


def assignment_previous_for_rater(assignment: Assignment) -> Assignment | None:
    """The rater's last judged assignment before this one in the project (for "back")."""
    return (
        Assignment.objects.filter(
            project_id=assignment.project_id,
            rater_id=assignment.rater_id,
            status=Assignment.Status.DONE,
            id__lt=assignment.pk,
        )
        .order_by("-id")
        .first()
    )


def _open_for(project_ids, rater):
    taken = Assignment.objects.filter(item=OuterRef("pk"), rater=rater).exclude(status=Assignment.Status.EXPIRED)
    return Item.objects.filter(
        project_id__in=project_ids,
        gold__isnull=True,
        retired_at__isnull=True,
        n_target__gt=F("n_judged") + F("n_leased"),
    ).exclude(Exists(taken))


def _planned_left(project: Project, rater) -> int:
    """Screens still to come for the rater in a project with controls: the open work and the controls still
    planned (annotation.selectors.screen_plan), so that "left" drops on every screen, control or not."""
    return screen_plan(project_id=project.pk, rater_id=rater.pk).remaining(project)


def _left(project: Project, membership: Membership, rater, open_count: int | None = None) -> int:
    """Screens still to come for the rater: planned (with controls) or open (``open_count`` when known), within
    the design and their quota."""
    controls = project_has_controls(project)
    if membership is None or not allocation_limits(project, membership):
        if controls:
            return _planned_left(project, rater)
        return open_count if open_count is not None else _open_for([project.pk], rater).count()
    left = (
        _planned_left(project, rater)
        if controls
        else allocation_open(project, membership, _open_for([project.pk], rater)).count()
    )
    quota = quota_left(project, membership)
    return left if quota is None else min(left, quota)


def rater_progress(*, project: Project, rater) -> dict:
    """``done`` (screens judged), ``assigned`` (leased now), ``remaining`` (screens still to come for this
    rater, control screens included)."""
    counts = Assignment.objects.filter(project=project, rater=rater).aggregate(
        done=Count("id", filter=Q(status=Assignment.Status.DONE)),
        assigned=Count("id", filter=Q(status=Assignment.Status.ACTIVE)),
    )
    membership = (
        Membership.objects.filter(project=project, user=rater).only("user_id", "max_screens", "plan_position").first()
    )
    counts["remaining"] = _left(project, membership, rater)
    counts["total"] = counts["done"] + counts["assigned"] + counts["remaining"]
    return counts


def rater_project_list(rater) -> list[tuple[Project, dict]]:
    """The projects ``rater`` rates in (drafts and archived projects are hidden from raters), each with its
    rater_progress, in three queries and one more per project with controls."""
    memberships = list(
        Membership.objects.filter(user=rater, role=Membership.Role.RATER)
        .exclude(project__status=Project.Status.DRAFT)
        .filter(project__archived_at__isnull=True)
        .select_related("project")
        .order_by("-project_id")
    )
    ids = [m.project_id for m in memberships]
    done = {
        row["project_id"]: row
        for row in Assignment.objects.filter(project_id__in=ids, rater=rater)
        .values("project_id")
        .annotate(
            done=Count("id", filter=Q(status=Assignment.Status.DONE)),
            assigned=Count("id", filter=Q(status=Assignment.Status.ACTIVE)),
        )
    }
    remaining = dict(_open_for(ids, rater).values("project_id").annotate(n=Count("id")).values_list("project_id", "n"))
    rows = []
    for m in memberships:
        counts = {
            "done": done.get(m.project_id, {}).get("done", 0),
            "assigned": done.get(m.project_id, {}).get("assigned", 0),
            "remaining": _left(m.project, m, rater, remaining.get(m.project_id, 0)),
            "is_paused": m.is_paused,
        }
        counts["total"] = counts["done"] + counts["assigned"] + counts["remaining"]
        rows.append((m.project, counts))
    return rows


def rater_progress_for_project(project: Project) -> list[dict]:
    """Per rater of the project (for its leads): judged, leased now, skipped, flags, last submission."""
    per_rater = {
        row["rater_id"]: row
        for row in Assignment.objects.filter(project=project)
        .values("rater_id")
        .annotate(
            done=Count("id", filter=Q(status=Assignment.Status.DONE)),
            assigned=Count("id", filter=Q(status=Assignment.Status.ACTIVE)),
            skipped=Count("id", filter=Q(status=Assignment.Status.SKIPPED)),
            last_at=Max("completed_at"),
        )
    }
    flags = dict(
        ItemFlag.objects.filter(project=project).values("rater_id").annotate(n=Count("id")).values_list("rater_id", "n")
    )
    rows = []
    for m in (
        Membership.objects.filter(project=project, role=Membership.Role.RATER, external_name="")
        .select_related("user")
        .order_by("user__username")
    ):
        row = per_rater.get(m.user_id, {})
        rows.append(
            {
                "username": m.user.username,
                "is_paused": m.is_paused,
                "done": row.get("done", 0),
                "assigned": row.get("assigned", 0),
                "skipped": row.get("skipped", 0),
                "flags": flags.get(m.user_id, 0),
                "last_at": row.get("last_at"),
            }
        )
    return rows


def item_flag_list_for_project(project: Project, *, limit: int = 50):
    """The project's latest flags, newest first, with item and rater (for its leads)."""
    return (
        ItemFlag.objects.filter(project=project).select_related("item", "rater").order_by("-created_at", "-id")[:limit]
    )
