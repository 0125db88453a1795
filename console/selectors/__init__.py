"""The lead console's reads: the set-up preview, whether a project has started, the item browser, an
item's detail, the import error report and progress (the last four imported from their modules)."""

from .preview import PREVIEW_ITEMS, preview_items, preview_screen_context
from .projects import project_has_started

__all__ = ["PREVIEW_ITEMS", "preview_items", "preview_screen_context", "project_has_started"]
