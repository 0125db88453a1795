"""A project's lifecycle: draft → live ⇄ paused → closed.

Only a live project serves items and takes judgments (annotation.services.assignment refuses the
others), and raters do not see a draft at all. Closed is final: a new round is a clone.
"""
from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Project
from audit.services import audit_record

Status = Project.Status
TRANSITIONS: dict[str, tuple[str, ...]] = {
    Status.DRAFT: (Status.LIVE,),
    Status.LIVE: (Status.PAUSED, Status.CLOSED),
    Status.PAUSED: (Status.LIVE, Status.CLOSED),
    Status.CLOSED: (),
}


@transaction.atomic
def project_status_set(*, project: Project, status: str, actor) -> Project:
    """Moves the project to ``status`` if TRANSITIONS allows it; raises ValidationError on ``status``."""
    project = Project.objects.select_for_update().get(pk=project.pk)
    if status not in Status.values:
        raise ValidationError({"status": f"unknown status {status!r}; choose one of {', '.join(Status.values)}"})
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
    audit_record(actor=actor, action=f"project.{status}", project=project, target=project.name,
                 detail={"from": previous, "to": status})
    return project
