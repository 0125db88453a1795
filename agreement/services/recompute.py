"""Starting an on-demand recompute as a tracked background job."""
from annotation.models import Job, Project
from annotation.services.job import job_start

RECOMPUTE_KIND = "agreement_recompute"


def agreement_recompute_start(*, project: Project, user) -> Job:
    from agreement.jobs import agreement_recompute_job

    return job_start(kind=RECOMPUTE_KIND, task=agreement_recompute_job, project=project, created_by=user)
