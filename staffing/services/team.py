"""A lead's changes to a project's team beyond quality control's pause and resume: removing a rater."""
from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Assignment, Membership, Project
from annotation.selectors import project_lock_shared
from annotation.services import assignment_leases_release
from audit.services import audit_record


@transaction.atomic
def team_rater_remove(*, project: Project, rater, by) -> int:
    """Takes the rater out of the project: their membership goes, their active leases are released so
    the items go back to the pool, their judgments stay. Returns how many leases were released."""
    # The project row, then the membership (the lock order of annotation.services.assignment): no new lease
    # can slip in meanwhile, and a submission in flight is waited for.
    project_lock_shared(project.pk)
    membership = (Membership.objects.select_for_update()
                  .filter(project=project, user=rater, role=Membership.Role.RATER).first())
    if membership is None:
        raise ValidationError({"rater": f"{rater} is not a rater of this project"})
    leases = list(Assignment.objects.select_for_update()
                  .filter(project=project, rater=rater, status=Assignment.Status.ACTIVE)
                  .order_by().values_list("id", "item_id"))
    assignment_leases_release(leases)
    membership.delete()
    audit_record(actor=by, action="rater.remove", project=project, target=rater.username,
                 detail={"leases_released": len(leases)})
    return len(leases)
