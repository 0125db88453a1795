"""What import_items and import_judgments share: open the file, show a progress bar, report bad lines."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from annotation.models import Project
from annotation.selectors.projects import project_by_id_or_name
from core.import_records import ImportRejected


class ImportCommand(BaseCommand):
    noun = "rows"

    def add_arguments(self, parser):
        parser.add_argument("project", help="project id or exact name")
        parser.add_argument("--owner", help="username of the project's owner, when several owners use the name")
        parser.add_argument("file", type=Path)
        parser.add_argument("--no-progress", action="store_true", help="do not draw a progress bar")

    def run_import(self, project: Project, stream, name: str, progress) -> int:
        raise NotImplementedError

    def handle(self, *args, project, file, no_progress, owner=None, **options):
        try:
            project_obj = project_by_id_or_name(project, owner=owner)
        except LookupError as exc:
            raise CommandError(str(exc)) from exc
        if not file.is_file():
            raise CommandError(f"no such file: {file}")
        bar = tqdm(total=0, unit=f" {self.noun}", disable=no_progress, file=sys.stderr)

        def progress(done, total):
            bar.total = total
            bar.update(done - bar.n)

        try:
            with file.open("rb") as stream:
                n = self.run_import(project_obj, stream, file.name, progress)
        except ImportRejected as exc:
            bar.close()
            for line, message in exc.report.errors:
                self.stderr.write(f"{file}:{line}: {message}")
            raise CommandError(exc.report.as_dict()["detail"]) from exc
        bar.close()
        self.stdout.write(
            self.style.SUCCESS(f"Imported {n} {self.noun} into project {project_obj.id} ({project_obj.name}).")
        )
