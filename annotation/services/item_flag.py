"""Flags raters raise on items they cannot judge as they are (broken, offensive, cannot judge)."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.models import Assignment, Item, ItemFlag
from annotation.selectors.screen_plan import project_has_controls

from .assignment import LeaseGone, assignment_lock_for_rater, rater_admitted_check, rater_may_work_check
from .qualification import qualification_decide
from .quality import qc_rules_apply

MAX_COMMENT = 2000


@transaction.atomic
def item_flag_create(*, rater, assignment_id: int, reason: str, comment: str = "", skip: bool = True) -> ItemFlag:
    """Records the flag; with ``skip`` an active assignment is closed as skipped (the slot goes back to
    the pool and the rater is not served the item again). A flag is never a judgment, and a flagged
    control screen still counts as served (training moves on; later checks still come)."""
    if reason not in ItemFlag.Reason.values:
        raise ValidationError(
            {"reason": f"unknown reason {reason!r}; choose one of {', '.join(ItemFlag.Reason.values)}"}
        )
    if len(comment) > MAX_COMMENT:
        raise ValidationError({"comment": f"at most {MAX_COMMENT} characters"})
    assignment, role, is_paused = assignment_lock_for_rater(rater=rater, assignment_id=assignment_id)
    rater_may_work_check(project=assignment.project, role=role, is_paused=is_paused)
    rater_admitted_check(project=assignment.project, rater_id=rater.pk)
    if assignment.status in (Assignment.Status.EXPIRED, Assignment.Status.SKIPPED):
        raise LeaseGone("This item is no longer yours to flag; ask for the next item.")
    flag = ItemFlag(
        project_id=assignment.project_id,
        item_id=assignment.item_id,
        assignment=assignment,
        rater=rater,
        reason=reason,
        comment=comment.strip(),
    )
    flag.full_clean()
    flag.save()
    if skip and assignment.status == Assignment.Status.ACTIVE:
        assignment.status, assignment.completed_at = Assignment.Status.SKIPPED, timezone.now()
        assignment.save(update_fields=["status", "completed_at"])
        Item.objects.filter(pk=assignment.item_id).update(n_leased=F("n_leased") - 1)
        if assignment.served_as == Assignment.ServedAs.TRAINING and assignment.project.training_pass_mark:
            qualification_decide(project=assignment.project, rater=rater)  # a flagged training screen counts wrong
    # Flags on control screens count in a rule of their own; as after a submission, the rules are checked
    # after every flag, whatever the screen was.
    if project_has_controls(assignment.project):
        qc_rules_apply(project=assignment.project, rater_id=rater.pk)
    return flag
