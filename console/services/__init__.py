"""The lead console's writes: setting a project up, its lifecycle (archive and delete included), cloning it
for a new round, item uploads (console.services.item_upload) and item changes (console.services.item_edit)."""

from .project_clone import project_clone
from .project_lifecycle import (
    TRANSITIONS,
    project_archive,
    project_delete,
    project_delete_allowed,
    project_restore,
    project_status_set,
)
from .project_setup import project_settings_update

__all__ = [
    "TRANSITIONS",
    "project_archive",
    "project_clone",
    "project_delete",
    "project_delete_allowed",
    "project_restore",
    "project_settings_update",
    "project_status_set",
]
