from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from agreement.services.recompute import agreement_recompute_run
from annotation.services.demo import RATERS, demo_setup


class Command(BaseCommand):
    help = (
        "Create the database, a lead, demo raters and one demo project per task type with three weeks of "
        "simulated judgments; then serve the site."
    )

    def add_arguments(self, parser):
        parser.add_argument("--addrport", default="127.0.0.1:8000")
        parser.add_argument("--no-serve", action="store_true", help="set up only, do not start the server")
        parser.add_argument("--lead-password", default="concord-demo-lead")
        parser.add_argument("--rater-password", default="concord-demo-rater")

    def handle(self, *args, addrport, no_serve, lead_password, rater_password, **options):
        if not settings.DEBUG:
            raise CommandError(
                "demo creates a staff account with a published password: it runs only with "
                "DJANGO_DEBUG=true (make run sets it), never on a deployment."
            )
        call_command("migrate", interactive=False, verbosity=0)
        projects = demo_setup(lead_username="lead", lead_password=lead_password, rater_password=rater_password)
        for project in projects:
            agreement_recompute_run(project_id=project.pk)
        host, _, port = addrport.rpartition(":")
        self.stdout.write(self.style.SUCCESS("Concord demo is ready."))
        self.stdout.write(f"  URL:     http://{host or '127.0.0.1'}:{port}/")
        self.stdout.write(f"  Lead:    lead / {lead_password}   (staff; admin at /admin/, API docs at /api/docs/)")
        self.stdout.write(
            f"  Raters:  {', '.join(r[0] for r in RATERS)} / {rater_password}   ({RATERS[-1][0]} is the careless one)"
        )
        self.stdout.write(f"  Projects: {', '.join(p.name for p in projects)}")
        self.stdout.write(f"  Database: {settings.DATABASES['default']['NAME']}")
        if not no_serve:
            call_command("runserver", addrport, use_reloader=False)
