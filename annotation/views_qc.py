"""The lead's rater quality page: gold accuracy, behaviour flags, position bias and the action log per
rater, with pause / resume / exclude / include forms."""
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotation.models import Membership
from annotation.selectors import project_get_for_lead, rater_action_list, rater_quality_report
from annotation.services import LEAD_ACTIONS

ACTIONS_SHOWN = 100


@login_required
def rater_quality_page(request, pk, *, status=200, error=None):
    project = project_get_for_lead(request.user, pk)
    report = rater_quality_report(project)
    return render(request, "annotation/rater_quality.html", {
        "project": project, "report": report, "actions": rater_action_list(project)[:ACTIONS_SHOWN],
        "error": error}, status=status)


@login_required
@require_POST
def rater_action(request, pk):
    project = project_get_for_lead(request.user, pk)
    action, reason = request.POST.get("action", ""), request.POST.get("reason", "")
    rater = get_user_model().objects.filter(
        pk=request.POST.get("rater") if request.POST.get("rater", "").isdigit() else None,
        memberships__project=project, memberships__role=Membership.Role.RATER).first()
    if action not in LEAD_ACTIONS:
        return rater_quality_page(request, pk, status=400,
                                  error=f"Unknown action {action!r}: choose {', '.join(LEAD_ACTIONS)}.")
    if rater is None:
        return rater_quality_page(request, pk, status=400, error="That is not a rater of this project.")
    try:
        logged = LEAD_ACTIONS[action](project=project, rater=rater, by=request.user, reason=reason)
    except ValidationError as exc:
        return rater_quality_page(request, pk, status=400, error=" ".join(exc.messages))
    messages.success(request, f"{rater.username}: {action} logged. {logged.evidence.get('replan_message', '')}".strip())
    return redirect("rater-quality", pk=project.pk)
