"""A lead's changes to a project's team beyond quality control's pause and resume: removing a rater."""

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Membership, Project
from annotation.selectors import project_lock_shared
from annotation.services.allocation import AllocationRelease, allocation_rater_release
from audit.services import audit_record


@transaction.atomic
def team_rater_remove(*, project: Project, rater, by) -> AllocationRelease:
    """Takes the rater out of the project: their membership goes, their active leases are released so
    the items go back to the pool and their place in the design is vacated, their judgments stay. Returns
    what went back to the pool."""
    # The project row, then the membership (the lock order of annotation.services.assignment): no new lease
    # can slip in meanwhile, and a submission in flight is waited for.
    project_lock_shared(project.pk)
    membership = (
        Membership.objects.select_for_update().filter(project=project, user=rater, role=Membership.Role.RATER).first()
    )
    if membership is None:
        raise ValidationError({"rater": f"{rater} is not a rater of this project"})
    release = allocation_rater_release(project=project, membership=membership, judged_too=False)
    membership.delete()
    audit_record(
        actor=by,
        action="rater.remove",
        project=project,
        target=rater.username,
        detail={"leases_released": release.leases, "replan": release.as_evidence()},
    )
    return release
