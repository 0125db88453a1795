from django.db.models import QuerySet

from .models import AuditEntry


def audit_list_for_project(project, *, action: str | None = None) -> QuerySet[AuditEntry]:
    entries = AuditEntry.objects.filter(project=project)
    if action:
        entries = entries.filter(action__startswith=action)
    return entries
