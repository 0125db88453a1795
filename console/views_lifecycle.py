"""The project page's archive, restore and delete actions (the status changes are in views_wizard)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotation.selectors import project_get_for_lead
from console.services import project_archive, project_delete, project_delete_allowed, project_restore
from console.services.project_lifecycle import DELETE_REFUSED


@login_required
@require_POST
def project_archive_page(request, pk):
    project = project_get_for_lead(request.user, pk)
    try:
        project_archive(project=project, actor=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(
            request, f"“{project.name}” is archived: hidden from the home list and read-only until you restore it."
        )
    return redirect("project-detail", pk=project.pk)


@login_required
@require_POST
def project_restore_page(request, pk):
    project = project_get_for_lead(request.user, pk)
    try:
        project = project_restore(project=project, actor=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, f"“{project.name}” is restored; it is {project.get_status_display().lower()}.")
    return redirect("project-detail", pk=project.pk)


@login_required
@require_http_methods(["GET", "POST"])
def project_delete_page(request, pk):
    """The typed confirmation: the project's name, for users with the admin-level delete permission only."""
    project = project_get_for_lead(request.user, pk)
    if not project_delete_allowed(request.user):
        raise PermissionDenied(DELETE_REFUSED)
    context, status = (
        {"project": project, "n_items": project.items.count(), "n_judgments": project.judgments.count(), "error": ""},
        200,
    )
    if request.method == "POST":
        try:
            project_delete(project=project, actor=request.user, confirm_name=request.POST.get("confirm_name", ""))
        except ValidationError as exc:
            context["error"], status = " ".join(exc.messages), 400
        else:
            messages.success(request, f"Deleted the project “{project.name}” with its items and judgments.")
            return redirect("home")
    return render(request, "console/project_delete.html", context, status=status)
