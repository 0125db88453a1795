"""The qualification gate: a pass mark on the training screens. A rater below it is served no real work and
has no answer taken (annotation.services.assignment.rater_admitted_check) until a lead admits them."""

from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.models import Assignment, Project, QualificationOutcome, RaterAction
from annotation.selectors.qualification import training_screens, training_target
from audit.services import audit_record


def qualification_decide(*, project: Project, rater, now: datetime | None = None) -> QualificationOutcome | None:
    """Decides the rater's gate once their training is over (every training screen of the project's number
    answered or flagged, none still leased); None while it is not, or when it was decided before.

    Call it with the rater's membership row locked (judgment_submit, item_flag_create hold it), so that two
    screens answered at once decide once."""
    if QualificationOutcome.objects.filter(project=project, rater=rater).exists():
        return None
    screens = training_screens(project=project, rater_id=rater.pk)
    target = training_target(project)
    open_lease = Assignment.objects.filter(
        project=project, rater=rater, served_as=Assignment.ServedAs.TRAINING, status=Assignment.Status.ACTIVE
    ).exists()
    if len(screens) < target or open_lease:
        return None
    n_right = sum(screen.right for screen in screens)
    # A whole number of items right at the mark passes: 3 of 4 at 0.75 (the epsilon absorbs 0.75 * 4 = 2.9999...).
    passed = not screens or n_right + 1e-9 >= project.training_pass_mark * len(screens)
    now = now or timezone.now()
    outcome = QualificationOutcome.objects.create(
        project=project,
        rater=rater,
        n_screens=len(screens),
        n_right=n_right,
        pass_mark=project.training_pass_mark,
        passed=passed,
        decided_at=now,
    )
    if not passed:
        evidence = {
            "training_screens": len(screens),
            "right": n_right,
            "pass_mark": project.training_pass_mark,
            "flagged": sum(screen.flagged for screen in screens),
        }
        RaterAction.objects.create(
            project=project,
            rater=rater,
            kind=RaterAction.Kind.GATE,
            rule="qualification",
            evidence=evidence,
            created_at=now,
        )
        audit_record(
            actor="qualification gate",
            action="rater.not_admitted",
            project=project,
            target=rater.username,
            detail=evidence,
        )
    return outcome


@transaction.atomic
def rater_admit(*, project: Project, rater, by, reason: str = "") -> RaterAction:
    """A lead lets a rater the gate kept out into the real work; logged with the lead's reason."""
    if not reason.strip():
        raise ValidationError({"reason": "say why: a lead's action is logged with its reason"})
    outcome = (
        QualificationOutcome.objects.select_for_update()
        .filter(project=project, rater=rater, passed=False, admitted_at__isnull=True)
        .first()
    )
    if outcome is None:
        raise ValidationError({"rater": f"{rater} is not kept out by the qualification gate"})
    now = timezone.now()
    outcome.admitted_by, outcome.admitted_at = by, now
    outcome.save(update_fields=["admitted_by", "admitted_at"])
    audit_record(actor=by, action="rater.admit", project=project, target=rater.username, detail={"reason": reason})
    return RaterAction.objects.create(
        project=project, rater=rater, kind=RaterAction.Kind.ADMIT, by=by, reason=reason, created_at=now
    )
