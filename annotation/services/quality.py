"""Quality control writes: versioned rules, pausing / resuming / excluding / including raters with a
logged action, and applying the rules to a rater (after a control screen, or for every rater at once)."""

from collections import defaultdict
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.models import Criterion, Item, Judgment, Membership, Project, QcRules, RaterAction, RaterExclusion
from annotation.selectors.quality import (
    SPEED_MIN_SCREENS,
    SPEED_WINDOW,
    behaviour_flags,
    control_flags,
    degraded_check,
    gold_accuracy,
    qc_rules_current,
)
from annotation.selectors.rater_loop import project_lock_shared
from annotation.services.allocation import allocation_rater_release
from annotation.task_types import REGISTRY
from audit.services import audit_record

from .qualification import rater_admit

RULE_FIELDS = (
    "min_gold_answered",
    "gold_accuracy_threshold",
    "action",
    "min_seconds_per_judgment",
    "straight_line_run",
    "min_degraded_answered",
    "degraded_p_threshold",
    "control_flag_share",
)


class NotARaterOfProject(ValidationError):
    pass


@transaction.atomic
def qc_rules_update(*, project: Project, by=None, **fields) -> QcRules:
    """The project's rules with ``fields`` changed. While the project has no judgment the current version
    is edited in place; after, the rules are frozen and the edit is stored as a new version."""
    unknown = set(fields) - set(RULE_FIELDS)
    if unknown:
        raise ValidationError({"rules": f"unknown fields {sorted(unknown)}; the rules are {list(RULE_FIELDS)}"})
    errors = {}
    for name in ("gold_accuracy_threshold", "degraded_p_threshold", "control_flag_share"):
        share = fields.get(name, 0)
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
            errors[name] = f"a share from 0 to 1, got {share!r}"
    for name in ("min_seconds_per_judgment", "min_gold_answered", "straight_line_run", "min_degraded_answered"):
        value = fields.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            errors[name] = f"a number of at least 0, got {value!r}"
    if "action" in fields and fields["action"] not in QcRules.Action.values:
        errors["action"] = f"one of {', '.join(QcRules.Action.values)}, got {fields['action']!r}"
    if errors:
        raise ValidationError(errors)
    Project.objects.select_for_update().filter(pk=project.pk).first()  # serialise concurrent edits
    current = qc_rules_current(project)
    if current is not None and all(getattr(current, name) == value for name, value in fields.items()):
        return current  # nothing changes: no new version
    changed = {
        name: [getattr(current, name) if current else None, value]
        for name, value in fields.items()
        if current is None or getattr(current, name) != value
    }
    if current is not None and not Judgment.objects.filter(project=project).exists():
        rules = current
    else:
        rules = QcRules(project=project, version=(current.version + 1) if current else 1)
        if current is not None:
            for name in RULE_FIELDS:
                setattr(rules, name, getattr(current, name))
    for name, value in fields.items():
        setattr(rules, name, value)
    rules.created_by = by
    rules.full_clean(exclude=["project", "created_by"])
    rules.save()
    audit_record(
        actor=by,
        action="qc.rules_update",
        project=project,
        target=f"version {rules.version}",
        detail={"version": rules.version, "changed": changed},
    )
    return rules


def _membership(project: Project, rater, *, required: bool = True) -> Membership | None:
    project_lock_shared(project.pk)  # the lock order of annotation.services.assignment
    membership = (
        Membership.objects.select_for_update().filter(project=project, user=rater, role=Membership.Role.RATER).first()
    )
    if membership is None and required:
        raise NotARaterOfProject({"rater": f"{rater} is not a rater of this project"})
    return membership


def _log(*, project, rater, kind, by=None, reason="", rules=None, rule="", evidence=None, now=None) -> RaterAction:
    return RaterAction.objects.create(
        project=project,
        rater=rater,
        kind=kind,
        by=by,
        reason=reason,
        rules=rules,
        rule=rule,
        evidence=evidence or {},
        created_at=now or timezone.now(),
    )


def _check_reason(by, reason: str) -> None:
    if by is not None and not reason.strip():
        raise ValidationError({"reason": "say why: a lead's action is logged with its reason"})


@transaction.atomic
def _act(
    *, project: Project, rater, kind: str, state: dict, by=None, reason: str = "", release: bool = False, **logged
) -> RaterAction:
    """Sets the rater's membership ``state`` (is_paused), records or lifts an exclusion (kind exclude or
    include), releases the rater's work to the pool on an exclusion or with ``release``, and logs the action."""
    _check_reason(by, reason)
    # An exclusion outlives the membership: a lead may lift it from a rater who has left the team.
    membership = _membership(project, rater, required=kind != RaterAction.Kind.INCLUDE)
    if membership is None and not RaterExclusion.objects.filter(project=project, rater=rater).exists():
        raise NotARaterOfProject({"rater": f"{rater} is not a rater of this project"})
    excluded = RaterExclusion.objects.filter(project=project, rater=rater)
    if kind == RaterAction.Kind.RESUME and excluded.exists():
        raise ValidationError({"rater": f"{rater} is excluded; include them again before resuming their work"})
    if kind == RaterAction.Kind.EXCLUDE:
        RaterExclusion.objects.get_or_create(
            project=project, rater=rater, defaults={"created_at": logged.get("now") or timezone.now()}
        )
    elif kind == RaterAction.Kind.INCLUDE:
        excluded.delete()
    released = release or kind == RaterAction.Kind.EXCLUDE
    if released:
        outcome = allocation_rater_release(
            project=project,
            membership=membership,
            judged_too=(kind == RaterAction.Kind.EXCLUDE and project.replan_excluded_judgments),
        )
        logged["evidence"] = {
            **logged.get("evidence", {}),
            "replan": outcome.as_evidence(),
            "replan_message": outcome.message,
        }
    for name, value in state.items():
        setattr(membership, name, value)
    if state and membership is not None:
        membership.save(update_fields=list(state))
    if by is not None:  # a lead's action; a rule's is in the qc.apply entry or the rater-action log
        audit_record(
            actor=by,
            action=f"rater.{kind}",
            project=project,
            target=rater.username,
            detail={"reason": reason, **({"replan": logged["evidence"]["replan"]} if released else {})},
        )
    return _log(project=project, rater=rater, kind=kind, by=by, reason=reason, **logged)


def rater_pause(*, project: Project, rater, **how) -> RaterAction:
    """Stops the rater being served items or having judgments taken (their judgments still count).
    ``how``: ``by`` + ``reason`` for a lead, ``rules`` + ``rule`` + ``evidence`` for a rule."""
    return _act(project=project, rater=rater, kind=RaterAction.Kind.PAUSE, state={"is_paused": True}, **how)


def rater_pause_for_good(*, project: Project, rater, **how) -> RaterAction:
    """Pauses the rater and releases their work as an exclusion does (their leases back to the pool, their place
    of the design vacated and its work re-planned), while their judgments still count; logged as a pause whose
    evidence holds the re-plan. A later resume takes a free place on their next screen."""
    return _act(
        project=project, rater=rater, kind=RaterAction.Kind.PAUSE, state={"is_paused": True}, release=True, **how
    )


def rater_resume(*, project: Project, rater, **how) -> RaterAction:
    return _act(project=project, rater=rater, kind=RaterAction.Kind.RESUME, state={"is_paused": False}, **how)


def rater_exclude(*, project: Project, rater, **how) -> RaterAction:
    """Pauses the rater and leaves all their judgments out of agreement and results until a lead includes
    them again, even if they leave the team meanwhile (and paused if they rejoin); exports keep them,
    flagged as an excluded rater's (or leave them out with the export option include_excluded=False)."""
    return _act(project=project, rater=rater, kind=RaterAction.Kind.EXCLUDE, state={"is_paused": True}, **how)


def rater_include(*, project: Project, rater, **how) -> RaterAction:
    """Counts the rater's judgments again; they stay paused until resumed."""
    return _act(project=project, rater=rater, kind=RaterAction.Kind.INCLUDE, state={}, **how)


# A lead's actions on a rater, by name (the rater pages' and the API's action forms).
LEAD_ACTIONS = {
    "pause": rater_pause,
    "pause_for_good": rater_pause_for_good,
    "resume": rater_resume,
    "exclude": rater_exclude,
    "include": rater_include,
    "admit": rater_admit,
}


def _findings(project: Project, rules: QcRules, rater_id: int | None) -> dict[int, list[tuple[str, dict]]]:
    """Per rater (one, or every rater), (rule name, evidence) for each rule they break now. A constant
    number of queries."""
    found: dict[int, list] = defaultdict(list)
    if rules.gold_accuracy_threshold > 0:
        for rater, acc in gold_accuracy(project, rater_id=rater_id).items():
            if acc.n_items >= rules.min_gold_answered and acc.accuracy < rules.gold_accuracy_threshold:
                found[rater].append(
                    (
                        "gold_accuracy",
                        {
                            "gold_items": acc.n_items,
                            "answers": acc.n,
                            "correct": acc.correct,
                            "accuracy": round(acc.accuracy, 4),
                            "threshold": rules.gold_accuracy_threshold,
                        },
                    )
                )
    if rules.min_seconds_per_judgment > 0 or rules.straight_line_run > 0:
        window = max(SPEED_WINDOW, rules.straight_line_run)
        for rater, flags in behaviour_flags(
            project, rules, rater_id=rater_id, last_screens=window, idle_leases=False
        ).items():
            if (
                rules.min_seconds_per_judgment > 0
                and flags.recent_screens >= SPEED_MIN_SCREENS
                and flags.recent_fast * 2 > flags.recent_screens
            ):
                found[rater].append(
                    (
                        "too_fast",
                        {
                            "recent_screens": flags.recent_screens,
                            "too_fast": flags.recent_fast,
                            "min_seconds": rules.min_seconds_per_judgment,
                        },
                    )
                )
            if rules.straight_line_run > 0 and flags.current_run >= rules.straight_line_run:
                found[rater].append(("straight_line", {"run": flags.current_run, "limit": rules.straight_line_run}))
    if rules.degraded_p_threshold > 0:
        for rater, check in degraded_check(project, rater_id=rater_id).items():
            p = check.p_value
            if p is not None and check.n_controls >= rules.min_degraded_answered and p > rules.degraded_p_threshold:
                found[rater].append(
                    (
                        "degraded",
                        {"controls": check.n_controls, "p_value": round(p, 6), "threshold": rules.degraded_p_threshold},
                    )
                )
    if rules.control_flag_share > 0:
        for rater, flags in control_flags(project, rater_id=rater_id).items():
            if flags.n_controls >= rules.min_gold_answered and flags.share > rules.control_flag_share:
                found[rater].append(
                    (
                        "control_flags",
                        {
                            "controls": flags.n_controls,
                            "flagged": flags.n_flagged,
                            "share": round(flags.share, 4),
                            "threshold": rules.control_flag_share,
                        },
                    )
                )
    return found


def _apply(project: Project, rules: QcRules, rater_id: int | None, now: datetime | None) -> list[RaterAction]:
    """Applies ``rules`` to one rater or every rater: their memberships are locked (in id order, the
    rater loop's lock order), the rules' data read in bulk, the actions decided per rater and written
    in bulk. A rater already in the action's state is left alone, and a warning is given once per rule
    and rules version."""
    if rater_id is None:  # after a submission, the rater loop holds the project and membership locks already
        project_lock_shared(project.pk)
    # Membership rows only: locking the users too would hold up every insert referring to them (judgments).
    memberships = (
        Membership.objects.select_for_update(of=("self",))
        .select_related("user")
        .filter(project=project, role=Membership.Role.RATER)
        .order_by("id")
    )
    if rater_id is not None:
        memberships = memberships.filter(user_id=rater_id)
    memberships = list(memberships)
    if not memberships:
        return []
    found = _findings(project, rules, rater_id)
    excluded = set()
    if rules.action == QcRules.Action.EXCLUDE and found:
        excluded = set(
            RaterExclusion.objects.filter(project=project, rater_id__in=list(found)).values_list("rater_id", flat=True)
        )
    warned = set()
    if rules.action == QcRules.Action.WARN and found:
        warned = set(
            RaterAction.objects.filter(
                project=project, kind=RaterAction.Kind.WARN, rules=rules, rater_id__in=list(found)
            ).values_list("rater_id", "rule")
        )
    kind = RaterAction.Kind(rules.action)  # a rule's action is logged as its own kind
    actions, changed, exclusions = [], [], []
    for membership in memberships:
        for rule, evidence in found.get(membership.user_id, []):
            if kind == RaterAction.Kind.WARN:
                if (membership.user_id, rule) in warned:
                    continue
            elif membership.user_id in excluded if kind == RaterAction.Kind.EXCLUDE else membership.is_paused:
                continue  # in the action's state already
            else:
                membership.is_paused = True
                changed.append(membership.pk)
                if kind == RaterAction.Kind.EXCLUDE:
                    excluded.add(membership.user_id)
                    exclusions.append(
                        RaterExclusion(project=project, rater_id=membership.user_id, created_at=now or timezone.now())
                    )
                    release = allocation_rater_release(
                        project=project, membership=membership, judged_too=project.replan_excluded_judgments
                    )
                    evidence = {**evidence, "replan": release.as_evidence(), "replan_message": release.message}
            actions.append(
                RaterAction(
                    project=project,
                    rater=membership.user,
                    kind=kind,
                    rules=rules,
                    rule=rule,
                    evidence=evidence,
                    created_at=now or timezone.now(),
                )
            )
    if changed:
        Membership.objects.filter(pk__in=changed).update(is_paused=True)
    if exclusions:
        RaterExclusion.objects.bulk_create(exclusions)
    return RaterAction.objects.bulk_create(actions) if actions else []


# No savepoint: on the submission path it is two more round trips, and a failure here is a database
# error that aborts the caller anyway.
@transaction.atomic(savepoint=False)
def qc_rules_apply(*, project: Project, rater_id: int, now: datetime | None = None) -> list[RaterAction]:
    """Applies the current rules to one rater; returns the actions taken (each logged with the rules
    version, the rule and its evidence)."""
    rules = qc_rules_current(project)
    if rules is None:
        return []
    return _apply(project, rules, rater_id, now)


@transaction.atomic
def qc_rules_apply_all(*, project: Project, now: datetime | None = None, by=None) -> list[RaterAction]:
    """Applies the current rules to every rater of the project (the QC job, or a lead ``by`` pressing the
    button, which the audit log records with the actions taken), in a constant number of queries."""
    rules = qc_rules_current(project)
    taken = _apply(project, rules, None, now) if rules is not None else []
    if by is not None:
        audit_record(
            actor=by,
            action="qc.apply",
            project=project,
            target=f"version {rules.version}" if rules else "no rules",
            detail={"actions": [{"rater": a.rater.username, "kind": a.kind, "rule": a.rule} for a in taken]},
        )
    return taken


def training_feedback(assignment, shown_systems: list[str]) -> dict:
    """What a rater in training is shown after answering a gold item: the expected answers in display
    terms and the item's ``meta.explanation`` (the guideline's reason)."""
    gold, meta = Item.objects.values_list("gold", "meta").get(pk=assignment.item_id)
    task_type = REGISTRY[assignment.project.task_type]
    criteria = Criterion.objects.filter(project_id=assignment.project_id).order_by("position", "id")
    expected = [
        v
        for name in criteria.values_list("name", flat=True)
        for v in task_type.gold_on_screen(gold or {}, name, shown_systems)
    ]
    explanation = (meta or {}).get("explanation", "")
    return {"expected": expected, "explanation": explanation if isinstance(explanation, str) else str(explanation)}
