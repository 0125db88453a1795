"""What the console needs to know of a project's state."""

from annotation.models import Assignment, Judgment, Project
from annotation.selectors import project_list_for_user


def project_has_started(project: Project) -> bool:
    """A rater has been served or has judged something (imported judgments count)."""
    return Assignment.objects.filter(project=project).exists() or Judgment.objects.filter(project=project).exists()


def project_is_archived_for(user, pk) -> bool:
    """The project ``pk`` is archived and ``user`` may see it (so that refusing a write to it as archived
    tells nobody else it exists)."""
    return user.is_authenticated and project_list_for_user(user).filter(pk=pk, archived_at__isnull=False).exists()
