"""The lead console's writes: setting a project up, its lifecycle, cloning it for a new round, and item
uploads (console.services.item_upload)."""
from .project_clone import project_clone
from .project_lifecycle import TRANSITIONS, project_status_set
from .project_setup import project_settings_update

__all__ = ["TRANSITIONS", "project_clone", "project_settings_update", "project_status_set"]
