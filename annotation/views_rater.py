"""The rater's pages: instructions, one judging screen after another, flags, the finished screen.

Each view parses its form, calls one service, and renders; the task type supplies the template.
"""
import time
import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotation.models import ItemFlag, Membership, Project
from annotation.rater_session import AFTER_FINISHED, RETURN_LINK
from annotation.selectors import (
    assignment_answers,
    assignment_get_for_rater,
    assignment_previous_for_rater,
    assignment_screen,
    judgment_screen_values,
    rater_progress,
    screen_questions,
)
from annotation.services import (
    LeaseGone,
    ProjectNotFound,
    RaterNotAdmitted,
    RaterRefused,
    assignment_next_for_rater,
    item_flag_create,
    judgment_submit,
)
from annotation.task_types import REGISTRY

SEEN_INSTRUCTIONS = "seen-instructions-{}"


def _refused(request, refusal: RaterRefused, project=None):
    if isinstance(refusal, ProjectNotFound):
        raise Http404(refusal.message)
    if isinstance(refusal, RaterNotAdmitted):  # the qualification gate's end page, with the platform's way back
        project_id = project.pk if project else request.resolver_match.kwargs["pk"]
        return render(request, "annotation/rater/not_admitted.html", {
            "message": refusal.message, "project": project or Project.objects.get(pk=project_id),
            "return_link": request.session.get(RETURN_LINK.format(project_id), "")}, status=refusal.status_code)
    return render(request, "annotation/rater/refused.html",
                  {"message": refusal.message, "project": project, "lease_gone": isinstance(refusal, LeaseGone)},
                  status=refusal.status_code)


def _rater_membership(request, pk) -> Membership:
    membership = (Membership.objects.select_related("project")
                  .filter(project_id=pk, user=request.user, role=Membership.Role.RATER)
                  .exclude(project__status=Project.Status.DRAFT).filter(project__archived_at__isnull=True).first())
    if membership is None:
        raise Http404("No such project.")
    return membership


@login_required
def rater_instructions(request, pk):
    membership = _rater_membership(request, pk)
    request.session[SEEN_INSTRUCTIONS.format(pk)] = True
    return render(request, "annotation/rater/instructions.html", {
        "project": membership.project, "criteria": membership.project.criteria.all(),
        "progress": rater_progress(project=membership.project, rater=request.user)})


def _screen_context(request, assignment, *, answers=None, errors=None, revising=False) -> dict:
    project = assignment.project
    screen = assignment_screen(assignment)
    return {
        "project": project, "assignment": assignment, "screen": screen,
        **screen_questions(screen=screen, task_type=REGISTRY[project.task_type], answers=answers,
                           config=project.task_config),
        "errors": errors or [], "revising": revising,
        "client_token": uuid.uuid4().hex, "served_ms": int(time.time() * 1000),
        "progress": rater_progress(project=project, rater=request.user),
        "previous": assignment_previous_for_rater(assignment),
        "flag_reasons": ItemFlag.Reason.choices,
    }


@login_required
def rate_next(request, pk):
    """The rater's current screen (resumed or newly leased), the instructions on first visit, or the end:
    the finished screen, or the page another app set for this rater under AFTER_FINISHED."""
    if not request.session.get(SEEN_INSTRUCTIONS.format(pk)):
        _rater_membership(request, pk)
        return redirect("rater-instructions", pk=pk)
    try:
        assignment = assignment_next_for_rater(project_id=pk, rater=request.user)
    except RaterRefused as refusal:
        return _refused(request, refusal)
    if assignment is None:
        after = request.session.get(AFTER_FINISHED.format(pk))
        if after:
            return redirect(after)
        membership = _rater_membership(request, pk)
        # Nothing is left to serve, whatever the plan still counted (a repeat whose original came too late).
        progress = rater_progress(project=membership.project, rater=request.user) | {"remaining": 0}
        progress["total"] = progress["done"] + progress["assigned"]
        return render(request, "annotation/rater/finished.html", {"project": membership.project,
                                                                  "progress": progress})
    template = REGISTRY[assignment.project.task_type].template_name
    return render(request, template, _screen_context(request, assignment))


@login_required
def rate_assignment(request, pk):
    """One of the rater's own assignments: the current one, or a judged one to revise ("back")."""
    assignment = assignment_get_for_rater(rater=request.user, pk=pk)
    if assignment is None:
        raise Http404("No such assignment.")
    if assignment.status != assignment.Status.DONE:
        return redirect("rate-next", pk=assignment.project_id)
    template = REGISTRY[assignment.project.task_type].template_name
    return render(request, template, _screen_context(request, assignment, answers=assignment_answers(assignment),
                                                     revising=True))


def _form_values(post, assignment) -> list[dict]:
    task_type = REGISTRY[assignment.project.task_type]
    criteria = {str(c["id"]): c["name"] for c in assignment_screen(assignment)["criteria"]}
    values = []
    for field, raw in post.items():
        if not field.startswith("v-") or raw == "":
            continue
        criterion_id, _, position = field[2:].partition("-")
        if criterion_id in criteria:
            values.append({"criterion": criteria[criterion_id], "value": task_type.form_value(raw),
                           "position": int(position) if position.isdigit() else None})
    return values


def _screen_again(request, assignment, exc: ValidationError, *, answers):
    """The same screen, 400, with the reasons the form was refused and what the rater had entered."""
    context = _screen_context(request, assignment, answers=answers,
                              errors=[m for ms in exc.message_dict.values() for m in ms],
                              revising=assignment.status == assignment.Status.DONE)
    return render(request, REGISTRY[assignment.project.task_type].template_name, context, status=400)


@login_required
@require_POST
def rate_submit(request, pk):
    assignment = assignment_get_for_rater(rater=request.user, pk=pk)
    if assignment is None:
        raise Http404("No such assignment.")
    values = _form_values(request.POST, assignment)
    duration = request.POST.get("duration_ms", "")
    try:
        result = judgment_submit(rater=request.user, assignment_id=assignment.pk, values=values,
                                 client_token=request.POST.get("client_token", "")[:64],
                                 duration_ms=int(duration) if duration.isdigit() else None)
    except RaterRefused as refusal:
        return _refused(request, refusal, assignment.project)
    except ValidationError as exc:
        return _screen_again(request, assignment, exc,
                             answers={k[2:]: v for k, v in request.POST.items() if k.startswith("v-")})
    if result.conflict:
        messages.warning(request, "This screen was sent before with other answers; the first answers were kept.")
    if result.feedback is not None:
        return _training_feedback(request, result)
    if request.headers.get("X-Concord-Next") == "inline":  # rate.js: the next screen in this response, no reload
        return rate_next(request, assignment.project_id)
    return redirect("rate-next", pk=assignment.project_id)


def _training_feedback(request, result):
    """The expected answers beside the rater's, after a training screen."""
    project = result.assignment.project
    task_type = REGISTRY[project.task_type]
    given = {(v["criterion"], v["position"]): v["value"]
             for v in judgment_screen_values(result.judgments, project)}
    rows = []
    for expected in result.feedback["expected"]:
        key = (expected["criterion"], expected.get("position"))
        want, mine, ok = task_type.feedback(expected["value"], given.get(key))
        rows.append({"criterion": key[0], "where": "—" if key[1] is None else f"output {key[1] + 1}",
                     "expected": want, "given": mine, "ok": ok})
    done = Membership.objects.filter(project=project, user=request.user).values_list("training_done", flat=True).first()
    return render(request, "annotation/rater/feedback.html", {
        "project": project, "rows": rows, "explanation": result.feedback["explanation"], "done": done})


@login_required
@require_POST
def rate_flag(request, pk):
    assignment = assignment_get_for_rater(rater=request.user, pk=pk)
    if assignment is None:
        raise Http404("No such assignment.")
    try:
        item_flag_create(rater=request.user, assignment_id=assignment.pk, reason=request.POST.get("reason", ""),
                         comment=request.POST.get("comment", ""))
    except RaterRefused as refusal:
        return _refused(request, refusal, assignment.project)
    except ValidationError as exc:
        return _screen_again(request, assignment, exc, answers=None)
    messages.info(request, "Thank you: the item is flagged for the project's leads, and you moved on.")
    return redirect("rate-next", pk=assignment.project_id)
