"""A lead's changes to a project's team beyond quality control's pause and resume: removing a rater."""
from collections import Counter

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from annotation.models import Assignment, Item, Membership, Project
from audit.services import audit_record


@transaction.atomic
def team_rater_remove(*, project: Project, rater, by) -> int:
    """Takes the rater out of the project: their membership goes, their active leases are released so
    the items go back to the pool, their judgments stay. Returns how many leases were released."""
    # The membership first (the lock order of annotation.services.assignment): no new lease can slip in
    # meanwhile, and a submission in flight is waited for.
    membership = (Membership.objects.select_for_update()
                  .filter(project=project, user=rater, role=Membership.Role.RATER).first())
    if membership is None:
        raise ValidationError({"rater": f"{rater} is not a rater of this project"})
    leases = list(Assignment.objects.select_for_update()
                  .filter(project=project, rater=rater, status=Assignment.Status.ACTIVE)
                  .order_by().values_list("id", "item_id"))
    if leases:
        Assignment.objects.filter(id__in=[pk for pk, _ in leases]).update(status=Assignment.Status.EXPIRED)
        # Items in id order, as assignment_expire takes them, so the two never wait on each other in a cycle.
        for item_id, n in sorted(Counter(item_id for _, item_id in leases).items()):
            Item.objects.filter(pk=item_id).update(n_leased=F("n_leased") - n)
    membership.delete()
    audit_record(actor=by, action="rater.remove", project=project, target=rater.username,
                 detail={"leases_released": len(leases)})
    return len(leases)
