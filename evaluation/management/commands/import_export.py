import sys
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from core.import_records import ImportRejected
from evaluation.services import NotAnExport, export_reimport


class Command(BaseCommand):
    help = "Load a Concord export zip into a new project (its criteria and design from card.json), all or nothing."

    def add_arguments(self, parser):
        parser.add_argument("archive", type=Path, help="the export's zip")
        parser.add_argument("--lead", required=True, help="username of the new project's lead")
        parser.add_argument("--name", help="project name (default: the exported one)")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, archive, lead, name, no_progress, **options):
        user = get_user_model().objects.filter(username=lead).first()
        if user is None:
            raise CommandError(f"no user named {lead!r}")
        bar = tqdm(total=0, unit=" judgments", disable=no_progress, file=sys.stderr)

        def progress(done, total):
            bar.total = total
            bar.update(done - bar.n)

        try:
            project, counts = export_reimport(
                archive_path=archive, created_by=user, name=name, progress=progress, by="manage.py import_export"
            )
        except NotAnExport as exc:
            raise CommandError(str(exc)) from exc
        except ValidationError as exc:  # the name is taken by another project of the lead's: --name picks one
            raise CommandError(" ".join(exc.messages) + " (give another with --name)") from exc
        except ImportRejected as exc:
            for line, message in exc.report.errors:
                self.stderr.write(f"line {line}: {message}")
            raise CommandError(exc.report.as_dict()["detail"]) from exc
        finally:
            bar.close()
        self.stdout.write(
            self.style.SUCCESS(
                f"Created project {project.id} ({project.name}) with {counts['items']} items and "
                f"{counts['judgments']} judgments."
            )
        )
