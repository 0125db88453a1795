"""The project argument of the evaluation commands: an id or an exact name."""

from django.core.management.base import CommandError

from annotation.models import Project


def project_from_arg(value: str) -> Project:
    project = (
        Project.objects.filter(pk=int(value)).first()
        if value.isdigit()
        else Project.objects.filter(name=value).first()
    )
    if project is None:
        raise CommandError(f"no project {value!r} (give its id or exact name)")
    return project
