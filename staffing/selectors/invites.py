"""Invites as their project's leads and their recipients see them."""
from django.db.models import QuerySet
from django.http import Http404

from annotation.models import Project
from staffing.models import Invite


def invite_list_for_project(project: Project) -> QuerySet[Invite]:
    return Invite.objects.filter(project=project).select_related("created_by").order_by("-created_at", "-id")


def invite_get_for_project(project: Project, invite_id) -> Invite:
    invite = Invite.objects.filter(project=project, pk=invite_id).first()
    if invite is None:
        raise Http404("No such invite.")
    return invite


def invite_get_by_token(token: str) -> Invite:
    invite = Invite.objects.select_related("project").filter(token=token).first()
    if invite is None:
        raise Http404("No such invite.")
    return invite
