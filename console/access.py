"""Who may open the console's pages: the project's leads (and staff); its raters get 403, everyone else 404."""
from django.core.exceptions import PermissionDenied

from annotation.models import Membership, Project
from annotation.selectors import project_get_for_user, project_role


def lead_project(user, pk) -> Project:
    project = project_get_for_user(user, pk)
    if project_role(user, project) != Membership.Role.LEAD:
        raise PermissionDenied("Only the project's leads may see this.")
    return project
