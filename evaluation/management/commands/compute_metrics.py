import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from evaluation.metrics import MetricUnavailable
from evaluation.services import DEFAULT_METRICS, metric_names_check, metrics_compute

from ._project_arg import project_from_arg


class Command(BaseCommand):
    help = "Score every output of a project with automatic metrics (in this process, not as a job)."

    def add_arguments(self, parser):
        parser.add_argument("project", help="project id or exact name")
        parser.add_argument(
            "--metric",
            action="append",
            dest="metrics",
            help=f"repeat for several (any ROUGE-1.5.5 variant by name, e.g. rouge155_7_r_stem); "
            f"default: {', '.join(DEFAULT_METRICS)}",
        )
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, project, metrics, no_progress, **options):
        project = project_from_arg(project)
        bar = tqdm(total=0, unit=" outputs", disable=no_progress, file=sys.stderr)

        def progress(done, total):
            bar.total = total
            bar.update(done - bar.n)

        try:
            metric_names_check(metrics)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        try:
            done = metrics_compute(project=project, names=metrics, progress=progress, by="manage.py compute_metrics")
        except MetricUnavailable as exc:
            raise CommandError(str(exc)) from exc
        bar.close()
        self.stdout.write(self.style.SUCCESS(f"Scored {done['outputs']} outputs with {', '.join(done['metrics'])}."))
