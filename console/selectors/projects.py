"""What the console needs to know of a project's state."""
from annotation.models import Assignment, Judgment, Project


def project_has_started(project: Project) -> bool:
    """A rater has been served or has judged something (imported judgments count)."""
    return (Assignment.objects.filter(project=project).exists()
            or Judgment.objects.filter(project=project).exists())
