"""The lead console's reads."""
from .preview import PREVIEW_ITEMS, preview_items, preview_screen_context

__all__ = ["PREVIEW_ITEMS", "preview_items", "preview_screen_context"]
