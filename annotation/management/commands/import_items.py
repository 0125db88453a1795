from annotation.services import item_import
from core.import_records import detect_format

from ._import_command import ImportCommand


class Command(ImportCommand):
    help = "Import items (JSONL, or CSV by the .csv suffix) into a project: every line or none."
    noun = "items"

    def run_import(self, project, stream, name, progress):
        return item_import(
            project=project,
            stream=stream,
            fmt=detect_format(name, None),
            progress=progress,
            by="manage.py import_items",
            file_name=name,
        )
