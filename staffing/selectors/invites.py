"""Invites as their project's leads and their recipients see them."""

from django.db.models import Count, QuerySet
from django.http import Http404

from annotation.models import Project
from staffing.models import Invite, InviteEmail


def invite_list_for_project(project: Project) -> QuerySet[Invite]:
    return Invite.objects.filter(project=project).select_related("created_by").order_by("-created_at", "-id")


def invite_email_counts(project: Project) -> dict[str, int]:
    """How many of the project's invite emails are sent, pending (still being tried) and failed."""
    counts = dict(
        InviteEmail.objects.filter(invite__project=project)
        .values("status")
        .annotate(n=Count("id"))
        .values_list("status", "n")
        .order_by()
    )
    return {status: counts.get(status, 0) for status in InviteEmail.Status.values}


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
