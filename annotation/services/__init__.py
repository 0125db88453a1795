"""Every write path of the annotation app."""
from .import_records import ImportRejected, ImportReport, detect_format
from .item_import import item_import
from .judgment_import import judgment_import
from .project import membership_set, project_create, user_create

__all__ = ["ImportRejected", "ImportReport", "detect_format", "item_import", "judgment_import", "membership_set",
           "project_create", "user_create"]
