"""System checks of the deployment's settings, run by `manage.py check` and by the commands that check first
(migrate, runserver)."""

from django.conf import settings
from django.core.checks import Error, register

SPLIT_SETTINGS = ("CONCORD_RECOMPUTE_BATCHES", "CONCORD_EXPORT_PARTS")


@register()
def celery_result_backend_check(app_configs, **kwargs) -> list[Error]:
    """A recompute or an export split into parts runs as a Celery chord, whose last step waits for the parts'
    results: with a broker but no result backend every such job would fail on the workers, long after start-up."""
    if not settings.CELERY_BROKER_URL or settings.CELERY_RESULT_BACKEND:
        return []
    split = [f"{name}={getattr(settings, name)}" for name in SPLIT_SETTINGS if getattr(settings, name) > 1]
    if not split:
        return []
    return [
        Error(
            f"CELERY_BROKER_URL is set but CELERY_RESULT_BACKEND is not, and {' and '.join(split)} split jobs "
            "into parts that Celery joins through the result backend.",
            hint="Set CELERY_RESULT_BACKEND (or REDIS_URL, which sets both), or set "
            + " and ".join(f"{name}=1" for name in SPLIT_SETTINGS)
            + " to run each job as one task.",
            id="concord.E001",
        )
    ]
