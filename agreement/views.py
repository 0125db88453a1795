"""The lead's agreement dashboard, drawn from stored snapshots only."""
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from agreement.selectors.dashboard import dashboard_for_project
from agreement.services import agreement_recompute_start
from annotation.selectors import project_get_for_lead


@login_required
def dashboard(request, pk):
    project = project_get_for_lead(request.user, pk)
    return render(request, "agreement/dashboard.html", {"project": project, **dashboard_for_project(project)})


@login_required
@require_POST
def recompute(request, pk):
    project = project_get_for_lead(request.user, pk)
    job = agreement_recompute_start(project=project, user=request.user)
    messages.success(request, f"Recompute started (job {job.id}); refresh in a moment.")
    return redirect("agreement-dashboard", pk=project.pk)
