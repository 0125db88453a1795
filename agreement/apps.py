from django.apps import AppConfig


class AgreementConfig(AppConfig):
    name = "agreement"
    verbose_name = "Agreement"

    def ready(self):
        from . import jobs  # noqa: F401  (registers the jobs its services queue by name: core.job_queue)
