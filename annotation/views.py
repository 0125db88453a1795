"""Server-rendered pages: the project list and a project's page (the lead's item pages are in console/)."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from annotation.models import Membership
from annotation.selectors import (
    item_flag_list_for_project,
    project_create_allowed,
    project_get_for_user,
    project_list_for_user,
    project_role,
    rater_progress,
    rater_progress_for_project,
    rater_project_list,
)
from annotation.selectors.adjudication import adjudication_summary
from annotation.selectors.progress import project_progress


@login_required
def home(request):
    """The user's projects; archived ones only with ``?archived=1`` (the list links them by their count)."""
    archived = request.GET.get("archived") == "1"
    projects = project_list_for_user(request.user)
    n_archived = projects.filter(archived_at__isnull=False).count()
    projects = projects.filter(archived_at__isnull=not archived).order_by("-id")
    return render(
        request,
        "annotation/home.html",
        {
            "projects": projects,
            "archived": archived,
            "n_archived": n_archived,
            "rating": [] if archived else rater_project_list(request.user),
            "may_create": project_create_allowed(request.user),
        },
    )


@login_required
def project_detail(request, pk):
    project = project_get_for_user(request.user, pk)
    role = project_role(request.user, project)
    context = {"project": project, "role": role}
    if role == Membership.Role.LEAD:
        context["progress"] = project_progress(project)
        context["raters"] = rater_progress_for_project(project)
        context["flags"] = item_flag_list_for_project(project)
        context["adjudication"] = adjudication_summary(project)
    elif role == Membership.Role.RATER:
        context["my_progress"] = rater_progress(project=project, rater=request.user)
    return render(request, "annotation/project_detail.html", context)
