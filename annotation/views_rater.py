"""The rater's pages: instructions, one judging screen after another, flags, the finished screen.

Each view parses its form, calls one service, and renders; the task type supplies the template.
"""

import time
import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
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
from annotation.selectors.allocation import quota_left, rater_quota
from annotation.services import (
    LeaseGone,
    ProfileNeeded,
    ProjectNotFound,
    RaterNotAdmitted,
    RaterRefused,
    assignment_ahead_for_rater,
    assignment_next_for_rater,
    item_flag_create,
    judgment_submit,
)
from annotation.task_types import REGISTRY, TaskTypeError

SEEN_INSTRUCTIONS = "seen-instructions-{}"


def _refused(request, refusal: RaterRefused, project=None):
    if isinstance(refusal, ProjectNotFound):
        raise Http404(refusal.message)
    if isinstance(refusal, RaterNotAdmitted):  # the qualification gate's end page, with the platform's way back
        project_id = project.pk if project else request.resolver_match.kwargs["pk"]
        return render(
            request,
            "annotation/rater/not_admitted.html",
            {
                "message": refusal.message,
                "project": project or Project.objects.get(pk=project_id),
                "return_link": request.session.get(RETURN_LINK.format(project_id), ""),
            },
            status=refusal.status_code,
        )
    return render(
        request,
        "annotation/rater/refused.html",
        {"message": refusal.message, "project": project, "lease_gone": isinstance(refusal, LeaseGone)},
        status=refusal.status_code,
    )


def _rater_membership(request, pk) -> Membership:
    membership = (
        Membership.objects.select_related("project")
        .filter(project_id=pk, user=request.user, role=Membership.Role.RATER)
        .exclude(project__status=Project.Status.DRAFT)
        .filter(project__archived_at__isnull=True)
        .first()
    )
    if membership is None:
        raise Http404("No such project.")
    return membership


@login_required
def rater_instructions(request, pk):
    membership = _rater_membership(request, pk)
    request.session[SEEN_INSTRUCTIONS.format(pk)] = True
    return render(
        request,
        "annotation/rater/instructions.html",
        {
            "project": membership.project,
            "criteria": membership.project.criteria.all(),
            "progress": rater_progress(project=membership.project, rater=request.user),
        },
    )


def _screen_context(request, assignment, *, answers=None, errors=None, revising=False, ahead_of=None) -> dict:
    """``ahead_of``: the rater's current screen, when ``assignment`` is the one leased ahead of it; the page is
    then drawn as it will be when shown, once the current one is judged."""
    project = assignment.project
    screen = assignment_screen(assignment)
    progress = rater_progress(project=project, rater=request.user)
    if ahead_of is not None:
        progress["done"] += 1  # the current screen, judged by then; the total stays (it counts it as leased now)
    return {
        "project": project,
        "assignment": assignment,
        "screen": screen,
        **screen_questions(
            screen=screen, task_type=REGISTRY[project.task_type], answers=answers, config=project.task_config
        ),
        "errors": errors or [],
        "revising": revising,
        "ahead": ahead_of is not None,
        "client_token": uuid.uuid4().hex,
        "served_ms": int(time.time() * 1000),
        "progress": progress,
        "previous": ahead_of or assignment_previous_for_rater(assignment),
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
    except ProfileNeeded:
        return redirect("rater-profile", pk=pk)
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
        # At their maximum no work comes back to the rater, whatever other raters give back.
        quota = rater_quota(membership, membership.project)
        at_quota = quota is not None and quota_left(membership.project, membership) == 0
        return render(
            request,
            "annotation/rater/finished.html",
            {"project": membership.project, "progress": progress, "quota": quota if at_quota else None},
        )
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
    return render(
        request, template, _screen_context(request, assignment, answers=assignment_answers(assignment), revising=True)
    )


def _form_values(post, assignment) -> list[dict]:
    criteria = {str(c["id"]): c["name"] for c in assignment_screen(assignment)["criteria"]}
    return screen_form_values(post, REGISTRY[assignment.project.task_type], criteria)


def _form_whole_number(text: str) -> int | None:
    """A form field's non-negative whole number, or None (its check then refuses it): ASCII digits only, since
    str.isdigit() also takes "²", which int() does not, and no more than a bigint's 18 digits."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def screen_form_values(post, task_type, criteria: dict[str, str]) -> list[dict]:
    """A screen form's answers as the API takes them; its fields are ``v-<criterion id>[-<suffix>][-t<turn>]`` (the
    suffix the output's display position, or what the task type's ``form_field`` reads; the turn an assistant
    turn's index, in a project rating per turn) and
    ``criteria`` maps the ids (as text) to names. Raises ValidationError naming the field a value cannot be
    read from."""
    values = []
    for field, raw in post.items():
        if not field.startswith("v-") or raw == "":
            continue
        criterion_id, _, suffix = field[2:].partition("-")
        suffix, per_turn, turn = suffix.partition("-t")
        if criterion_id in criteria:
            try:
                position, value = task_type.form_field(suffix, raw)
            except TaskTypeError as exc:
                raise ValidationError({field: str(exc)}) from exc
            values.append({"criterion": criteria[criterion_id], "value": value, "position": position})
            if per_turn:
                turn_number = _form_whole_number(turn)
                values[-1]["turn"] = turn if turn_number is None else turn_number
    return values


def _screen_again(request, assignment, exc: ValidationError, *, answers):
    """The same screen, 400, with the reasons the form was refused and what the rater had entered."""
    context = _screen_context(
        request,
        assignment,
        answers=answers,
        errors=[m for ms in exc.message_dict.values() for m in ms],
        revising=assignment.status == assignment.Status.DONE,
    )
    return render(request, REGISTRY[assignment.project.task_type].template_name, context, status=400)


@login_required
@require_POST
def rate_submit(request, pk):
    assignment = assignment_get_for_rater(rater=request.user, pk=pk)
    if assignment is None:
        raise Http404("No such assignment.")
    try:
        result = judgment_submit(
            rater=request.user,
            assignment_id=assignment.pk,
            values=_form_values(request.POST, assignment),
            client_token=request.POST.get("client_token", "")[:64],
            duration_ms=_form_whole_number(request.POST.get("duration_ms", "")),
        )
    except RaterRefused as refusal:
        return _refused(request, refusal, assignment.project)
    except ValidationError as exc:
        return _screen_again(
            request, assignment, exc, answers={k[2:]: v for k, v in request.POST.items() if k.startswith("v-")}
        )
    if result.conflict:
        messages.warning(request, "This screen was sent before with other answers; the first answers were kept.")
    if result.feedback is not None:
        return _training_feedback(request, result)
    mode = request.headers.get("X-Concord-Next")
    if mode == "ahead" and not result.revision:
        # rate.js showed the screen leased ahead when the rater sent this one: the answer is the screen after it,
        # also when this is a resend of answers already stored (the first request's response was lost)
        return _ahead(request, assignment.project_id, shown_now=True)
    if mode in ("inline", "ahead"):  # rate.js: the next screen in this response, no reload
        return rate_next(request, assignment.project_id)
    return redirect("rate-next", pk=assignment.project_id)


def _ahead(request, project_id: int, *, shown_now: bool):
    """The screen leased ahead of the rater's current one, marked ``X-Concord-Screen: ahead`` for rate.js to hold
    until the current one is sent; 204 when there is none. ``shown_now`` (the page shows the screen that was
    leased ahead): when that screen's lease is gone, the rater's next screen, to be shown now. Refusals are pages
    (rate.js shows them when they answer a submission)."""
    try:
        leases = assignment_ahead_for_rater(project_id=project_id, rater=request.user, shown_now=shown_now)
    except RaterRefused as refusal:
        return _refused(request, refusal)
    if leases.current is None and shown_now:
        return rate_next(request, project_id)
    if leases.ahead is None:
        return HttpResponse(status=204)
    response = render(
        request,
        REGISTRY[leases.ahead.project.task_type].template_name,
        _screen_context(request, leases.ahead, ahead_of=leases.current),
    )
    response["X-Concord-Screen"] = "ahead"
    return response


@login_required
@require_POST
def rate_ahead(request, pk):
    """The screen after the rater's current one (rate.js asks for it when a screen comes up by a page load)."""
    return _ahead(request, pk, shown_now=False)


def _training_feedback(request, result):
    """The expected answers beside the rater's, after a training screen."""
    project = result.assignment.project
    task_type = REGISTRY[project.task_type]
    given = {
        (v["criterion"], v["position"], v.get("turn")): v["value"]
        for v in judgment_screen_values(result.judgments, project)
    }
    rows = []
    for expected in result.feedback["expected"]:
        key = (expected["criterion"], expected.get("position"), expected.get("turn"))
        want, mine, ok = task_type.feedback(expected["value"], given.get(key))
        rows.append(
            {
                "criterion": key[0],
                "where": "—"
                if key[1] is None
                else f"output {key[1] + 1}" + ("" if key[2] is None else f", turn {key[2] + 1}"),
                "expected": want,
                "given": mine,
                "ok": ok,
            }
        )
    done = Membership.objects.filter(project=project, user=request.user).values_list("training_done", flat=True).first()
    return render(
        request,
        "annotation/rater/feedback.html",
        {"project": project, "rows": rows, "explanation": result.feedback["explanation"], "done": done},
    )


@login_required
@require_POST
def rate_flag(request, pk):
    assignment = assignment_get_for_rater(rater=request.user, pk=pk)
    if assignment is None:
        raise Http404("No such assignment.")
    try:
        item_flag_create(
            rater=request.user,
            assignment_id=assignment.pk,
            reason=request.POST.get("reason", ""),
            comment=request.POST.get("comment", ""),
        )
    except RaterRefused as refusal:
        return _refused(request, refusal, assignment.project)
    except ValidationError as exc:
        return _screen_again(request, assignment, exc, answers=None)
    messages.info(request, "Thank you: the item is flagged for the project's leads, and you moved on.")
    return redirect("rate-next", pk=assignment.project_id)
