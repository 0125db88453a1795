"""A project's lifecycle: draft → live ⇄ paused → closed (a draft may also be closed unused), and apart from
the status, archiving (read-only and out of the home list, restorable) and deletion.

Only a live project serves items and takes judgments (annotation.services.assignment refuses the
others), and raters do not see a draft at all. Closed is final: a new round is a clone. An archived
project keeps its status but is read-only everywhere (console.middleware refuses every write to it).
"""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.models import Project
from audit.services import audit_record

Status = Project.Status
TRANSITIONS: dict[str, tuple[str, ...]] = {
    Status.DRAFT: (Status.LIVE, Status.CLOSED),
    Status.LIVE: (Status.PAUSED, Status.CLOSED),
    Status.PAUSED: (Status.LIVE, Status.CLOSED),
    Status.CLOSED: (),
}
DELETE_REFUSED = "Deleting a project takes the admin-level permission to delete projects."
ARCHIVED_READ_ONLY = "This project is archived and read-only; a lead can restore it from the project page."


def _locked(project: Project) -> Project:
    return Project.objects.select_for_update().get(pk=project.pk)


@transaction.atomic
def project_status_set(*, project: Project, status: str, actor) -> Project:
    """Moves the project to ``status`` if TRANSITIONS allows it; raises ValidationError on ``status``."""
    project = _locked(project)
    if status not in Status.values:
        raise ValidationError({"status": f"unknown status {status!r}; choose one of {', '.join(Status.values)}"})
    if project.is_archived:
        raise ValidationError({"status": ARCHIVED_READ_ONLY})
    if status not in TRANSITIONS[project.status]:
        if project.status == Status.CLOSED:
            why = "A closed project is final; clone it for a new round."
        elif status == project.status:
            why = f"The project is {project.status} already."
        else:
            allowed = " or ".join(TRANSITIONS[project.status])
            why = f"A {project.status} project can only become {allowed}, not {status}."
        raise ValidationError({"status": why})
    if status == Status.LIVE and not project.criteria.exists():
        raise ValidationError({"status": "A project needs at least one criterion before it goes live."})
    previous = project.status
    project.status = status
    project.save(update_fields=["status"])
    audit_record(
        actor=actor,
        action=f"project.{status}",
        project=project,
        target=project.name,
        detail={"from": previous, "to": status},
    )
    return project


@transaction.atomic
def project_archive(*, project: Project, actor) -> Project:
    """Archives the project (its status stays, for the restore); raises ValidationError if it is already."""
    project = _locked(project)
    if project.is_archived:
        raise ValidationError({"archived": "The project is archived already."})
    project.archived_at = timezone.now()
    project.save(update_fields=["archived_at"])
    audit_record(
        actor=actor, action="project.archive", project=project, target=project.name, detail={"status": project.status}
    )
    return project


@transaction.atomic
def project_restore(*, project: Project, actor) -> Project:
    """Takes the project out of the archive, with the status it had; raises ValidationError if it is not in it."""
    project = _locked(project)
    if not project.is_archived:
        raise ValidationError({"archived": "The project is not archived."})
    project.archived_at = None
    project.save(update_fields=["archived_at"])
    audit_record(
        actor=actor, action="project.restore", project=project, target=project.name, detail={"status": project.status}
    )
    return project


def project_delete_allowed(user) -> bool:
    """Deleting a project takes the admin-level ``annotation.delete_project`` permission (superusers hold
    it); being the project's lead, or staff, is not enough."""
    return user.is_authenticated and user.has_perm("annotation.delete_project")


@transaction.atomic
def project_delete(*, project: Project, actor, confirm_name: str) -> dict:
    """Deletes the project with everything in it once ``confirm_name`` is its exact name; returns what was
    deleted, by model. Raises PermissionDenied without the permission, ValidationError on ``confirm_name``.
    The audit log keeps the entry (and the project's older entries, by name)."""
    if not project_delete_allowed(actor):
        raise PermissionDenied(DELETE_REFUSED)
    project = _locked(project)
    if confirm_name != project.name:
        raise ValidationError({"confirm_name": f"Type the project's name, {project.name!r}, exactly to delete it."})
    counts = {
        "items": project.items.count(),
        "judgments": project.judgments.count(),
        "members": project.memberships.count(),
    }
    name = project.name
    audit_record(actor=actor, action="project.delete", project=project, target=name, detail=counts)
    project.delete()
    return counts
