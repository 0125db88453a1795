"""The one write path of the audit log: append an entry. Entries are never changed or deleted."""

from .context import request_origin
from .models import ACTIONS, AuditEntry


def audit_record(
    *, actor, action: str, project=None, target: str = "", detail: dict | None = None, actor_name: str = ""
) -> AuditEntry:
    """Append one entry. Call it inside the transaction of the action it records, so both land or neither.

    ``actor`` is the user who acted, or None, or a string naming what acted when no user did (a command:
    ``"manage.py export_project"``), which is also what ``actor_name`` gives. The source (web, API or
    command) and the client's address come from the request being served, if any.
    """
    if action not in ACTIONS:  # one list of names, so the log's filters and readers know every action
        raise ValueError(f"unknown audit action {action!r}: add it to audit.models.ACTIONS with its meaning")
    if isinstance(actor, str):
        actor, actor_name = None, actor_name or actor
    user = actor if getattr(actor, "pk", None) else None
    origin = request_origin()
    return AuditEntry.objects.create(
        project=project,
        project_name=getattr(project, "name", ""),
        actor=user,
        actor_name=(getattr(user, "username", "") or actor_name)[:150],
        action=action,
        target=str(target)[:255],
        detail=detail or {},
        source=origin.source if origin else AuditEntry.Source.COMMAND,
        ip=origin.ip if origin else None,
    )
