from .models import AuditEntry


def audit_record(*, actor, action: str, project=None, target: str = "", detail: dict | None = None) -> AuditEntry:
    """Append one entry. Call it inside the transaction of the action it records, so both land or neither."""
    return AuditEntry.objects.create(
        project=project, project_name=getattr(project, "name", ""),
        actor=actor if getattr(actor, "pk", None) else None, actor_name=getattr(actor, "username", "") or "",
        action=action, target=str(target)[:255], detail=detail or {})
