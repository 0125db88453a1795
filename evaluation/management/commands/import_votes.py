import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from core.import_records import ImportRejected
from evaluation.services.vote_files import FORMATS
from evaluation.services.vote_import import VoteImportError, detect_vote_format, vote_import

from ._project_arg import project_from_arg


class Command(BaseCommand):
    help = (
        "Import pairwise votes of a study run elsewhere (CSV, JSON lines or Parquet; a public arena's columns "
        "model_a, model_b, winner, judge, tstamp, question_id or Concord's system_a, system_b, winner, rater, "
        "submitted_at, prompt) into a project that compares pairs: every vote or none."
    )

    def add_arguments(self, parser):
        parser.add_argument("project", help="project id or exact name")
        parser.add_argument("file", type=Path)
        parser.add_argument("--criterion", help="criterion the votes are on (default: the project's first)")
        parser.add_argument("--format", choices=FORMATS, help="default: from the file's ending (else JSON lines)")
        parser.add_argument("--no-progress", action="store_true", help="do not draw a progress bar")

    def handle(self, *args, project, file, criterion, format, no_progress, **options):
        project_obj = project_from_arg(project)
        if not file.is_file():
            raise CommandError(f"no such file: {file}")
        bar = tqdm(total=file.stat().st_size, unit="B", unit_scale=True, disable=no_progress, file=sys.stderr)

        def progress(done, total):
            bar.update(done - bar.n)

        try:
            result = vote_import(
                project=project_obj,
                path=file,
                fmt=format or detect_vote_format(file.name, None),
                criterion=criterion,
                by="manage.py import_votes",
                file_name=file.name,
                progress=progress,
            )
        except VoteImportError as exc:
            raise CommandError(str(exc)) from exc
        except ImportRejected as exc:
            for line, message in exc.report.errors:
                self.stderr.write(f"{file}:{line}: {message}")
            raise CommandError(exc.report.as_dict()["detail"]) from exc
        finally:
            bar.close()
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {result.imported} votes ({result.layout} layout, {result.n_systems} systems) into project "
                f"{project_obj.id} ({project_obj.name})."
            )
        )
