"""Each project's weekly recompute, as an editable django-celery-beat periodic task."""

import json

from django.db import transaction
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from annotation.models import Project
from audit.services import audit_record

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
TASK = "agreement.jobs.agreement_scheduled_recompute_job"


def _task_name(project: Project) -> str:
    return f"agreement weekly recompute, project {project.id}"


def schedule_get(project: Project) -> dict:
    task = PeriodicTask.objects.filter(name=_task_name(project)).select_related("crontab").first()
    if task is None:
        return {"enabled": False, "day_of_week": "mon", "hour": 3}
    return {"enabled": task.enabled, "day_of_week": task.crontab.day_of_week, "hour": int(task.crontab.hour)}


@transaction.atomic
def schedule_set(*, project: Project, enabled: bool, day_of_week: str = "mon", hour: int = 3, by=None) -> dict:
    """Creates or updates the project's weekly recompute (UTC); ``enabled=False`` keeps it, paused."""
    if day_of_week not in DAYS:
        raise ValueError(f"day_of_week must be one of {', '.join(DAYS)}")
    if not 0 <= hour <= 23:
        raise ValueError("hour must be 0 to 23 (UTC)")
    before = schedule_get(project)
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute="0", hour=str(hour), day_of_week=day_of_week, day_of_month="*", month_of_year="*", timezone="UTC"
    )
    PeriodicTask.objects.update_or_create(
        name=_task_name(project),
        defaults={
            "task": TASK,
            "crontab": crontab,
            "interval": None,
            "args": json.dumps([project.id]),
            "enabled": enabled,
        },
    )
    after = schedule_get(project)
    changed = {name: [before[name], value] for name, value in after.items() if before[name] != value}
    if changed:
        audit_record(actor=by, action="agreement.schedule_set", project=project, detail={"changed": changed})
    return after
