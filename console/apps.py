from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    name = "console"

    def ready(self):
        from . import jobs  # noqa: F401  (registers the jobs its services queue by name: core.job_queue)
