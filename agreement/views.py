"""The lead's agreement dashboard, drawn from stored snapshots only."""
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import render

from agreement.selectors.dashboard import dashboard_for_project
from annotation.models import Membership
from annotation.selectors import project_get_for_user, project_role


@login_required
def dashboard(request, pk):
    project = project_get_for_user(request.user, pk)
    if project_role(request.user, project) != Membership.Role.LEAD:
        raise PermissionDenied
    return render(request, "agreement/dashboard.html", {"project": project, **dashboard_for_project(project)})
