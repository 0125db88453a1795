"""Which projects a user may see, and in which role."""

from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404

from annotation.models import Membership, Project


def project_list_for_user(user) -> QuerySet[Project]:
    """Staff see every project; members see theirs, but for drafts and archived projects, which only their
    leads see."""
    projects = Project.objects.prefetch_related("criteria")
    if user.is_staff:
        return projects
    shown_to_raters = Q(archived_at__isnull=True) & ~Q(status=Project.Status.DRAFT)
    return projects.filter(Q(memberships__user=user) & (Q(memberships__role=Membership.Role.LEAD) | shown_to_raters))


def project_get_for_user(user, pk) -> Project:
    """The project if ``user`` is staff or a member (a lead, for a draft); else Http404, so its existence
    is not revealed."""
    project = project_list_for_user(user).filter(pk=pk).first()
    if project is None:
        raise Http404("No such project.")
    return project


def project_get_for_lead(user, pk) -> Project:
    """The project if ``user`` leads it or is staff; PermissionDenied for its raters, Http404 for everyone else."""
    project = project_get_for_user(user, pk)
    if project_role(user, project) != Membership.Role.LEAD:
        raise PermissionDenied("Only the project's leads may do this.")
    return project


def project_role(user, project: Project) -> str | None:
    """``"lead"`` for staff and leads, ``"rater"`` for raters, None for everyone else."""
    if user.is_staff:
        return Membership.Role.LEAD
    return Membership.objects.filter(project=project, user=user).values_list("role", flat=True).first()


def project_ids_led_by(user) -> QuerySet:
    """The ids of the projects ``user`` leads (``CONCORD_JOB_PROJECTS_LED``: a lead watches their jobs)."""
    return Membership.objects.filter(user=user, role=Membership.Role.LEAD).values("project_id")


def project_create_allowed(user) -> bool:
    """Staff, and users holding the ``annotation.add_project`` permission, may create projects."""
    return user.is_authenticated and (user.is_staff or user.has_perm("annotation.add_project"))


def project_by_id_or_name(value: str, *, owner: str | None = None) -> Project:
    """The project whose id is ``value``, or whose exact name it is (of the user ``owner``, when given: names
    are unique per owner, not across owners). Raises LookupError saying what is missing or ambiguous."""
    if value.isdigit():
        projects = Project.objects.filter(pk=int(value))
    else:
        projects = Project.objects.filter(name=value)
    if owner is not None:
        projects = projects.filter(created_by__username=owner)
    found = list(projects.select_related("created_by").order_by("id")[:10])
    if not found:
        raise LookupError(f"no project {value!r}{f' of {owner!r}' if owner else ''} (give its id or exact name)")
    if len(found) > 1:
        owners = ", ".join(f"{p.pk} (of {p.created_by.username if p.created_by else 'nobody'})" for p in found)
        raise LookupError(f"several projects are named {value!r}: {owners}; give the id, or the owner with --owner")
    return found[0]
