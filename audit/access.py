"""Who may read a project's audit log: its leads and staff (403 for its raters, 404 for outsiders)."""
from django.core.exceptions import PermissionDenied

from annotation.models import Membership
from annotation.selectors import project_get_for_user, project_role


def project_for_audit(user, pk):
    project = project_get_for_user(user, pk)
    if project_role(user, project) != Membership.Role.LEAD:
        raise PermissionDenied("Only the project's leads may read its audit log.")
    return project
