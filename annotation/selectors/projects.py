"""Which projects a user may see, and in which role."""
from django.db.models import QuerySet
from django.http import Http404

from annotation.models import Membership, Project


def project_list_for_user(user) -> QuerySet[Project]:
    projects = Project.objects.prefetch_related("criteria")
    return projects if user.is_staff else projects.filter(memberships__user=user)


def project_get_for_user(user, pk) -> Project:
    """The project if ``user`` is staff or a member; else Http404, so its existence is not revealed."""
    project = project_list_for_user(user).filter(pk=pk).first()
    if project is None:
        raise Http404("No such project.")
    return project


def project_role(user, project: Project) -> str | None:
    """``"lead"`` for staff and leads, ``"rater"`` for raters, None for everyone else."""
    if user.is_staff:
        return Membership.Role.LEAD
    return Membership.objects.filter(project=project, user=user).values_list("role", flat=True).first()
