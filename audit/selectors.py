"""Reads of the audit log: a project's entries, newest first, filtered."""

from datetime import datetime

from django.db.models import Count, Q, QuerySet

from .models import AuditEntry


def audit_list_for_project(
    project, *, action: str | None = None, actor: str | None = None, since: datetime | None = None
) -> QuerySet[AuditEntry]:
    """``action`` is a whole name or a prefix ending at a dot (``rater`` takes rater.pause, rater.exclude…);
    ``actor`` a username or command name."""
    entries = AuditEntry.objects.filter(project=project)
    if action:
        action = action.rstrip(".")
        entries = entries.filter(Q(action=action) | Q(action__startswith=action + "."))
    if actor:
        entries = entries.filter(actor_name=actor)
    if since is not None:
        entries = entries.filter(created_at__gte=since)
    return entries.order_by("-created_at", "-id")


def audit_actor_names_for_project(project) -> list[str]:
    return list(
        AuditEntry.objects.filter(project=project)
        .exclude(actor_name="")
        .values_list("actor_name", flat=True)
        .distinct()
        .order_by("actor_name")
    )


def audit_action_counts_for_project(project, *, leave_out: tuple[str, ...] = ()) -> dict[str, int]:
    """How many times each action was recorded, by action name; ``leave_out`` drops whole groups by prefix."""
    entries = AuditEntry.objects.filter(project=project)
    for prefix in leave_out:
        entries = entries.exclude(action__startswith=prefix.rstrip(".") + ".")
    return dict(entries.values_list("action").annotate(n=Count("id")).order_by("action"))
