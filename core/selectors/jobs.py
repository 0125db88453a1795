"""Which background jobs a user may watch."""

from django.conf import settings
from django.db.models import Q
from django.http import Http404
from django.utils.module_loading import import_string

from core.models import Job


def job_get_for_user(user, pk) -> Job:
    """The job if ``user`` started it, leads its project or is staff; else Http404.

    The projects a user leads are the answer of CONCORD_JOB_PROJECTS_LED (a setting: core imports no app).
    """
    jobs = Job.objects.all()
    if not user.is_staff:
        led = import_string(settings.CONCORD_JOB_PROJECTS_LED)(user)
        jobs = jobs.filter(Q(created_by=user) | Q(project_id__in=led))
    job = jobs.filter(pk=pk).first()
    if job is None:
        raise Http404("No such job.")
    return job
