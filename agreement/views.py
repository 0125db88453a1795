"""The lead's agreement dashboard, drawn from stored snapshots only."""
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from agreement.selectors.dashboard import dashboard_for_project
from agreement.services import agreement_recompute_start
from annotation.models import Membership
from annotation.selectors import project_get_for_user, project_role


def _led_project(request, pk):
    project = project_get_for_user(request.user, pk)
    if project_role(request.user, project) != Membership.Role.LEAD:
        raise PermissionDenied
    return project


@login_required
def dashboard(request, pk):
    project = _led_project(request, pk)
    return render(request, "agreement/dashboard.html", {"project": project, **dashboard_for_project(project)})


@login_required
@require_POST
def recompute(request, pk):
    project = _led_project(request, pk)
    job = agreement_recompute_start(project=project, user=request.user)
    messages.success(request, f"Recompute started (job {job.id}); refresh in a moment.")
    return redirect("agreement-dashboard", pk=project.pk)
