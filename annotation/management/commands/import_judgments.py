from annotation.error_span_formats import LAYOUTS
from annotation.services import judgment_import
from core.import_records import is_tab_separated

from ._import_command import ImportCommand


class Command(ImportCommand):
    help = (
        "Import judgments of a study run elsewhere (JSONL; for error-span projects also a .tsv of errors in "
        "WMT's layouts) into a project: every line or none."
    )
    noun = "judgments"

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--layout",
            choices=LAYOUTS,
            help="a .tsv's layout: spans marked with <v>…</v> in the "
            "texts, or given as offsets (default: from the header)",
        )

    def handle(self, *args, layout=None, **options):
        self.layout = layout
        super().handle(*args, **options)

    def run_import(self, project, stream, name, progress):
        return judgment_import(
            project=project,
            stream=stream,
            progress=progress,
            by="manage.py import_judgments",
            file_name=name,
            fmt="tsv" if is_tab_separated(name, None) else "jsonl",
            layout=self.layout,
        )
