"""The lead's agreement dashboard, drawn from stored snapshots only."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from agreement.selectors.dashboard import dashboard_for_project
from agreement.selectors.freshness import agreement_freshness
from agreement.services import agreement_recompute_start, agreement_settings_update
from agreement.services.stale_recompute import MAX_MINUTES as MAX_AUTO_MINUTES
from annotation.selectors import project_get_for_lead


@login_required
def dashboard(request, pk):
    project = project_get_for_lead(request.user, pk)
    return render(
        request,
        "agreement/dashboard.html",
        {
            "project": project,
            "freshness": agreement_freshness(project),
            "max_auto_minutes": MAX_AUTO_MINUTES,
            "board": dashboard_for_project(project),
        },
    )


@login_required
@require_POST
def recompute(request, pk):
    project = project_get_for_lead(request.user, pk)
    job = agreement_recompute_start(project=project, user=request.user)
    messages.success(request, f"Recompute started (job {job.id}); refresh in a moment.")
    return redirect("agreement-dashboard", pk=project.pk)


@login_required
@require_POST
def auto_recompute(request, pk):
    """Sets how often at most the agreement is recomputed by itself after new judgments (0: never)."""
    project = project_get_for_lead(request.user, pk)
    value = request.POST.get("auto_recompute_minutes", "").strip()
    if not value.isdigit() or int(value) > MAX_AUTO_MINUTES:
        messages.error(
            request,
            f"Give the minutes between automatic recomputes as a whole number from 0 (off) to "
            f"{MAX_AUTO_MINUTES} (a week); got {value!r}.",
        )
    else:
        agreement_settings_update(project=project, by=request.user, auto_recompute_minutes=int(value))
        messages.success(
            request,
            f"The agreement is recomputed by itself at most every {int(value)} minutes after new judgments."
            if int(value)
            else "Automatic recompute is off.",
        )
    return redirect("agreement-dashboard", pk=project.pk)
