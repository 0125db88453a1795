from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Evaluation"

    def ready(self):
        from . import jobs  # noqa: F401  (registers the jobs its services queue by name: core.job_queue)
