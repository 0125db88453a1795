"""Which background jobs a user may watch."""

from django.db.models import Q
from django.http import Http404

from annotation.models import Job, Membership


def job_get_for_user(user, pk) -> Job:
    """The job if ``user`` started it, leads its project or is staff; else Http404."""
    jobs = Job.objects.all()
    if not user.is_staff:
        led = Membership.objects.filter(user=user, role=Membership.Role.LEAD).values("project_id")
        jobs = jobs.filter(Q(created_by=user) | Q(project_id__in=led))
    job = jobs.filter(pk=pk).first()
    if job is None:
        raise Http404("No such job.")
    return job
