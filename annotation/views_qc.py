"""The lead's quality-control pages on raters: every rater at a glance (state, measures, the action log in
words), one rater's evidence, and the action forms (pause / resume / exclude / include / admit)."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotation.selectors import project_get_for_lead, rater_action_list, rater_quality_report
from annotation.selectors.quality_text import action_actor, action_reason, rules_sentences
from annotation.selectors.rater_evidence import rater_evidence, rater_in_project
from annotation.services import LEAD_ACTIONS

ACTIONS_SHOWN = 100


def _actions_in_words(actions) -> list[dict]:
    return [{"action": a, "actor": action_actor(a), "why": action_reason(a)} for a in actions]


@login_required
def rater_quality_page(request, pk, *, status=200, error=None):
    project = project_get_for_lead(request.user, pk)
    report = rater_quality_report(project)
    return render(
        request,
        "annotation/rater_quality.html",
        {
            "project": project,
            "report": report,
            "error": error,
            "rules_text": rules_sentences(report["rules"]) if report["rules"] else None,
            "actions": _actions_in_words(rater_action_list(project)[:ACTIONS_SHOWN]),
        },
        status=status,
    )


@login_required
def rater_evidence_page(request, pk, rater_id, *, status=200, error=None):
    project = project_get_for_lead(request.user, pk)
    rater = get_user_model().objects.filter(pk=rater_id).first()
    if rater is None or not rater_in_project(project, rater_id):
        raise Http404("No such rater in this project.")
    report = next((r for r in rater_quality_report(project)["raters"] if r["user_id"] == rater_id), None)
    return render(
        request,
        "annotation/rater_evidence.html",
        {
            "project": project,
            "rater": rater,
            "row": report,
            "evidence": rater_evidence(project, rater_id),
            "is_excluded": project.rater_exclusions.filter(rater_id=rater_id).exists(),
            "error": error,
            "actions": _actions_in_words(rater_action_list(project, rater_id=rater_id)[:ACTIONS_SHOWN]),
        },
        status=status,
    )


@login_required
@require_POST
def rater_action(request, pk):
    """A lead's action on a rater, from the QC page or (``back=rater``) the rater's own page, where it returns."""
    project = project_get_for_lead(request.user, pk)
    action, reason = request.POST.get("action", ""), request.POST.get("reason", "")
    raw = request.POST.get("rater", "")
    rater = get_user_model().objects.filter(pk=raw).first() if raw.isdigit() else None
    if rater is not None and not rater_in_project(project, rater.pk):
        rater = None
    back_to_rater = request.POST.get("back") == "rater" and rater is not None

    def again(error: str):
        if back_to_rater:
            return rater_evidence_page(request, pk, rater.pk, status=400, error=error)
        return rater_quality_page(request, pk, status=400, error=error)

    if action not in LEAD_ACTIONS:
        return again(f"Unknown action {action!r}: choose {', '.join(LEAD_ACTIONS)}.")
    if rater is None:
        return again("That is not a rater of this project.")
    try:
        logged = LEAD_ACTIONS[action](project=project, rater=rater, by=request.user, reason=reason)
    except ValidationError as exc:
        return again(" ".join(exc.messages))
    replan = logged.evidence.get("replan_message", "")
    messages.success(request, f"{rater.username}: {action.replace('_', ' ')} logged. {replan}".strip())
    if back_to_rater:
        return redirect("rater-evidence", pk=project.pk, rater_id=rater.pk)
    return redirect("rater-quality", pk=project.pk)
