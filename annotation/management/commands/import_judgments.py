from annotation.services import judgment_import

from ._import_command import ImportCommand


class Command(ImportCommand):
    help = "Import judgments of a study run elsewhere (JSONL) into a project: every line or none."
    noun = "judgments"

    def run_import(self, project, stream, name, progress):
        return judgment_import(project=project, stream=stream, progress=progress, by="manage.py import_judgments",
                               file_name=name)
