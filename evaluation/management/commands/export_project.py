import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from evaluation.export.writers import FORMATS
from evaluation.services import ExportOptions, ExportOptionsError, export_write
from evaluation.services.export import SPLITS

from ._project_arg import project_from_arg


class Command(BaseCommand):
    help = (
        "Export a project as a zip (items, judgments, scores, raters in JSONL/CSV/Parquet, README.md data card, "
        "HEDS 3.0 datasheet), in this process, not as a job."
    )

    def add_arguments(self, parser):
        parser.add_argument("project", help="project id or exact name")
        parser.add_argument("--output", "-o", type=Path, required=True, help="the zip file to write")
        parser.add_argument(
            "--format",
            action="append",
            choices=FORMATS,
            dest="formats",
            help="repeat for several; default: all",
        )
        parser.add_argument("--split", choices=SPLITS, default="all", help="one file per table or per subgroup")
        parser.add_argument("--include-usernames", action="store_true", help="usernames instead of pseudonyms")
        parser.add_argument(
            "--with-excluded",
            action="store_true",
            help="also the judgments of raters quality control excluded (left out by default, as on the export page)",
        )
        parser.add_argument("--recompute-agreement", action="store_true")
        parser.add_argument("--license", default="unknown", help="Hugging Face license id, e.g. cc-by-4.0")
        parser.add_argument("--language", action="append", default=[], dest="languages", help="ISO 639 code")
        parser.add_argument("--task-category", action="append", dest="task_categories")
        parser.add_argument("--name", default="", help="dataset name in the card (default: the project's)")
        parser.add_argument(
            "--csv-raw-text",
            action="store_true",
            help="CSV text as it is (default: a leading ' before = + - @ tab CR, so spreadsheets run no formula)",
        )
        parser.add_argument(
            "--soft-labels", action="store_true", help="add every answer and the soft label per unit (LeWiDi layout)"
        )
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, project, output, no_progress, **o):
        project = project_from_arg(project)
        options = ExportOptions(
            formats=tuple(o["formats"] or FORMATS),
            split=o["split"],
            include_usernames=o["include_usernames"],
            include_excluded=o["with_excluded"],
            recompute_agreement=o["recompute_agreement"],
            license=o["license"],
            languages=tuple(o["languages"]),
            task_categories=tuple(o["task_categories"] or ("text-generation",)),
            pretty_name=o["name"],
            csv_raw_text=o["csv_raw_text"],
            soft_labels=o["soft_labels"],
        )
        bar = tqdm(total=100, unit="%", disable=no_progress, file=sys.stderr, bar_format="{l_bar}{bar}| {elapsed}")

        def progress(done, total, message=""):
            bar.set_description(message or "exporting")
            bar.update(round(100 * done / total) - bar.n)

        try:
            summary = export_write(
                project=project, options=options, destination=output, progress=progress, by="manage.py export_project"
            )
        except ExportOptionsError as exc:
            raise CommandError(str(exc)) from exc
        finally:
            bar.close()
        self.stdout.write(
            self.style.SUCCESS(f"Exported {summary['n_judgments']} judgments of project {project.id} to {output}.")
        )
