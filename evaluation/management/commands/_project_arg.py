"""The project argument of the evaluation commands: an id or an exact name."""

from django.core.management.base import CommandError

from annotation.models import Project
from annotation.selectors.projects import project_by_id_or_name


def project_from_arg(value: str) -> Project:
    try:
        return project_by_id_or_name(value)
    except LookupError as exc:
        raise CommandError(str(exc)) from exc
