"""Server-rendered pages: the project list, a project's page and the lead's item upload."""
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotation.forms import ImportForm
from annotation.models import Membership
from annotation.parsers import ImportTooLarge, spool
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
from annotation.selectors.progress import project_progress
from annotation.services import ImportRejected, detect_format, item_import


@login_required
def home(request):
    projects = project_list_for_user(request.user).order_by("-id")
    return render(request, "annotation/home.html", {"projects": projects,
                                                    "rating": rater_project_list(request.user),
                                                    "may_create": project_create_allowed(request.user)})


@login_required
def project_detail(request, pk):
    project = project_get_for_user(request.user, pk)
    role = project_role(request.user, project)
    context = {"project": project, "role": role, "form": ImportForm()}
    if role == Membership.Role.LEAD:
        context["progress"] = project_progress(project)
        context["raters"] = rater_progress_for_project(project)
        context["flags"] = item_flag_list_for_project(project)
    elif role == Membership.Role.RATER:
        context["my_progress"] = rater_progress(project=project, rater=request.user)
    return render(request, "annotation/project_detail.html", context)


@login_required
@require_POST
def item_import_upload(request, pk):
    project = project_get_for_user(request.user, pk)
    if project_role(request.user, project) != Membership.Role.LEAD:
        raise PermissionDenied
    form = ImportForm(request.POST, request.FILES)
    context = {"project": project, "role": Membership.Role.LEAD, "form": form}
    status = 400
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            with spool(upload) as stream:
                n = item_import(project=project, stream=stream, fmt=detect_format(upload.name, upload.content_type),
                                by=request.user, file_name=upload.name)
        except ImportRejected as exc:
            context["import_errors"] = exc.report.as_dict()
        except ImportTooLarge as exc:
            context["import_errors"], status = {"detail": str(exc.detail), "errors": []}, 413
        else:
            messages.success(request, f"Imported {n} items.")
            return redirect("project-detail", pk=project.pk)
    context["progress"] = project_progress(project)
    context["raters"] = rater_progress_for_project(project)
    context["flags"] = item_flag_list_for_project(project)
    return render(request, "annotation/project_detail.html", context, status=status)
