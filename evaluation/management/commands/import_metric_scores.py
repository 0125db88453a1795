from annotation.management.commands._import_command import ImportCommand
from core.import_records import detect_format
from evaluation.services import metric_score_import


class Command(ImportCommand):
    help = (
        "Import metric scores computed elsewhere: JSONL {item, system, metric, score} or {item, system, "
        "scores: {...}}, or CSV with item, system and a column per metric. Every line or none."
    )
    noun = "scores"

    def run_import(self, project, stream, name, progress):
        return metric_score_import(
            project=project,
            stream=stream,
            fmt=detect_format(name, None),
            progress=progress,
            by="manage.py import_metric_scores",
            file_name=name,
        )
