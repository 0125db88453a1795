"""The lead's audit log page: who did what to the project, newest first, filtered by action and actor (in the
console: audit itself sits below the apps' services and selectors)."""

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render

from annotation.selectors import project_get_for_lead
from audit.models import ACTIONS
from audit.selectors import audit_actor_names_for_project, audit_list_for_project

PAGE_SIZE = 50
# The filter's choices: each group (rater, qc, …) and then every action.
ACTION_CHOICES = sorted({name.split(".")[0] for name in ACTIONS}) + list(ACTIONS)


@login_required
def audit_log(request, pk):
    project = project_get_for_lead(request.user, pk)
    action, actor = request.GET.get("action", "").strip(), request.GET.get("actor", "").strip()
    entries = audit_list_for_project(project, action=action or None, actor=actor or None)
    page = Paginator(entries, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "audit/audit_log.html",
        {
            "project": project,
            "page": page,
            "action": action,
            "actor": actor,
            "actions": ACTION_CHOICES,
            "actors": audit_actor_names_for_project(project),
        },
    )
