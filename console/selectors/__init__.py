"""The lead console's reads."""
from .preview import PREVIEW_ITEMS, preview_items, preview_screen_context
from .projects import project_has_started

__all__ = ["PREVIEW_ITEMS", "preview_items", "preview_screen_context", "project_has_started"]
