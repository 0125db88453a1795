"""Every non-trivial read of the annotation app."""
from .items import item_list_for_project
from .judgments import judgment_list_for_project, rater_names_for_project
from .projects import project_get_for_user, project_list_for_user, project_role

__all__ = ["item_list_for_project", "judgment_list_for_project", "project_get_for_user", "project_list_for_user",
           "project_role", "rater_names_for_project"]
