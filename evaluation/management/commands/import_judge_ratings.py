from annotation.management.commands._import_command import ImportCommand
from evaluation.services import judge_rating_import


class Command(ImportCommand):
    help = (
        "Import an automatic judge's ratings (JSONL {judge, item, system, criterion, value, kind?}): all lines or none."
    )
    noun = "ratings"

    def run_import(self, project, stream, name, progress):
        return judge_rating_import(project=project, stream=stream, by="manage.py import_judge_ratings", file_name=name)
