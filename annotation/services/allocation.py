"""Allocation: per-rater quotas, the design that spreads a project's work over its raters, and the re-plan
when a rater leaves it.

The design (annotation.allocation_design) plans each work item for places 0..R-1 (``Item.plan_mask``); a
rater takes a free place on their first screen (annotation.services.allocation_places) and is served the
items of their place, so that work is even, every pair of places planned to overlap shares its units, and
late joiners find their share waiting. When a rater is excluded or removed, their place is vacated: its
unfinished work goes to the next rater who joins once every place has been taken, and to raters whose own work
is done and whose quota has room, on items that no rater holding a place still has to judge; the place's units
shared with other places wait ``vacated_hold_minutes`` for the rater taking it over first, so that this rater
shares with the place's partners what the design planned (given away at once, they would be judged by whoever was
free, and the pairs of the place planned to overlap would share less).
Expired leases return as before (annotation.services.assignment).
"""

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.allocation_design import MAX_PLACES, item_masks
from annotation.models import Assignment, Item, Membership, Project
from annotation.selectors.allocation import allocation_places, work_targets
from audit.services import audit_record

from .adaptive_allocation import adaptive_design_check
from .allocation_places import allocation_place_vacate
from .assignment import assignment_leases_release

SETTINGS = (
    "max_screens_per_rater",
    "expected_screens_per_rater",
    "planned_raters",
    "min_pair_overlap",
    "replan_excluded_judgments",
    "vacated_hold_minutes",
)
# A vacated place's shared units wait at most this long (a week) for the rater taking it over.
MAX_HOLD_MINUTES = 7 * 24 * 60
BATCH_SIZE = 2000


def allocation_plan_apply(*, project: Project) -> int:
    """Plans the project's work items for the places of its design anew (their masks), in id order; returns
    the number of places (0: no design, every item open to every rater)."""
    targets = work_targets(project)
    places = allocation_places(
        planned_raters=project.planned_raters,
        max_screens=project.max_screens_per_rater,
        n_slots=sum(t for _, t in targets),
    )
    masks = item_masks([t for _, t in targets], places=places, min_pair_overlap=project.min_pair_overlap)
    by_mask: dict[int, list[int]] = {}
    for (pk, _), mask in zip(targets, masks, strict=True):
        by_mask.setdefault(mask, []).append(pk)
    with transaction.atomic():
        Item.objects.filter(project=project).exclude(plan_mask=0).update(plan_mask=0)
        for mask, ids in by_mask.items():
            if mask:
                for start in range(0, len(ids), BATCH_SIZE):
                    Item.objects.filter(pk__in=ids[start : start + BATCH_SIZE]).update(plan_mask=mask)
        # Places beyond the new design's are no place: their raters take a free one on their next screen.
        Membership.objects.filter(project=project, plan_position__gte=places).update(plan_position=None)
        claimed = project.plan_claimed_mask & ((1 << places) - 1)
        used = sorted(mask for mask in by_mask if mask)
        Project.objects.filter(pk=project.pk).update(plan_size=places, plan_claimed_mask=claimed, plan_masks=used)
    project.plan_size, project.plan_claimed_mask, project.plan_masks = places, claimed, used
    return places


def allocation_plan_refresh(*, project: Project) -> None:
    """Plans the items anew after their targets changed (an import, a re-plan of targets), if the project
    has a design or settings that make one."""
    if project.plan_size or project.planned_raters or project.max_screens_per_rater:
        allocation_plan_apply(project=project)


def _positive_or_none(name: str, value) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError({name: f"a whole number of at least 1, or empty for none; got {value!r}"})
    return value


def _settings_check(fields: dict) -> dict:
    unknown = sorted(set(fields) - set(SETTINGS))
    if unknown:
        raise ValidationError(
            {name: f"not an allocation setting; choose from {', '.join(SETTINGS)}" for name in unknown}
        )
    clean = {}
    for name in ("max_screens_per_rater", "expected_screens_per_rater", "planned_raters"):
        if name in fields:
            clean[name] = _positive_or_none(name, fields[name])
    if clean.get("planned_raters") is not None and clean["planned_raters"] > MAX_PLACES:
        raise ValidationError({"planned_raters": f"at most {MAX_PLACES} raters can be planned"})
    if "min_pair_overlap" in fields:
        value = fields["min_pair_overlap"]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10000:
            raise ValidationError({"min_pair_overlap": f"a whole number from 0 to 10000; got {value!r}"})
        clean["min_pair_overlap"] = value
    if "vacated_hold_minutes" in fields:
        value = fields["vacated_hold_minutes"]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_HOLD_MINUTES:
            raise ValidationError(
                {"vacated_hold_minutes": f"a whole number of minutes from 0 to {MAX_HOLD_MINUTES}; got {value!r}"}
            )
        clean["vacated_hold_minutes"] = value
    if "replan_excluded_judgments" in fields:
        if not isinstance(fields["replan_excluded_judgments"], bool):
            raise ValidationError({"replan_excluded_judgments": "true or false"})
        clean["replan_excluded_judgments"] = fields["replan_excluded_judgments"]
    return clean


def _quota_pair_check(max_screens, expected, *, names=("max_screens", "expected_screens")) -> None:
    if max_screens is not None and expected is not None and expected > max_screens:
        raise ValidationError({names[1]: f"{expected} expected screens exceed the maximum of {max_screens}"})


@transaction.atomic
def allocation_settings_update(*, project: Project, by, **fields) -> Project:
    """Sets the project's allocation settings (SETTINGS) and plans its items anew for them."""
    clean = _settings_check(fields)
    project = Project.objects.select_for_update().get(pk=project.pk)
    changed = {name: value for name, value in clean.items() if getattr(project, name) != value}
    for name, value in clean.items():
        setattr(project, name, value)
    _quota_pair_check(
        project.max_screens_per_rater,
        project.expected_screens_per_rater,
        names=("max_screens_per_rater", "expected_screens_per_rater"),
    )
    adaptive_design_check(project)
    project.save(update_fields=list(clean) or None)
    places = allocation_plan_apply(project=project)
    audit_record(
        actor=by,
        action="allocation.update",
        project=project,
        target=project.name,
        detail={"changed": changed, "places": places},
    )
    return project


@transaction.atomic
def allocation_rater_quota_set(*, project: Project, rater, by, max_screens=None, expected_screens=None) -> Membership:
    """Sets one rater's own maximum and expected screens (None: the project's)."""
    max_screens = _positive_or_none("max_screens", max_screens)
    expected_screens = _positive_or_none("expected_screens", expected_screens)
    _quota_pair_check(max_screens, expected_screens)
    membership = Membership.objects.filter(project=project, user=rater, role=Membership.Role.RATER).first()
    if membership is None:
        raise ValidationError({"rater": f"{rater} is not a rater of this project"})
    membership.max_screens, membership.expected_screens = max_screens, expected_screens
    membership.save(update_fields=["max_screens", "expected_screens"])
    audit_record(
        actor=by,
        action="allocation.rater_quota",
        project=project,
        target=rater.username,
        detail={"max_screens": max_screens, "expected_screens": expected_screens},
    )
    return membership


@dataclass(frozen=True)
class AllocationRelease:
    """What went back to the pool when a rater left the design."""

    rater: str
    leases: int
    judged_slots: int
    place: int | None
    hold_minutes: int

    @property
    def message(self) -> str:
        parts = [f"{self.leases} item{'s' if self.leases != 1 else ''} {self.rater} held went back to the pool"]
        if self.judged_slots:
            parts.append(
                f"{self.judged_slots} item{'s' if self.judged_slots != 1 else ''} they judged want one more rater"
            )
        if self.place is not None:
            held = (
                f"its units shared with other raters wait {self.hold_minutes} minute"
                f"{'s' if self.hold_minutes != 1 else ''} for that rater, its other work"
                if self.hold_minutes
                else "its work"
            )
            parts.append(
                f"their place {self.place + 1} of the design is open: the next rater to join takes it; "
                f"{held} goes to raters with quota left meanwhile"
            )
        return "Re-planned: " + "; ".join(parts) + "."

    def as_evidence(self) -> dict:
        evidence = {"leases_returned": self.leases, "judged_slots_returned": self.judged_slots, "place": self.place}
        return evidence if self.place is None else {**evidence, "hold_minutes": self.hold_minutes}


def allocation_rater_release(*, project: Project, membership: Membership, judged_too: bool) -> AllocationRelease:
    """Returns the rater's active leases to the pool, vacates their place, and with ``judged_too`` (an
    exclusion, when the project says so) raises the target of every work item they judged by one. The caller
    holds the project's shared lock and the rater's membership row."""
    place = membership.plan_position
    if place is not None:  # vacated: taken once (the project's claimed mask), held by no one
        # First: the places lock comes before assignment and item rows (annotation.services.assignment)
        allocation_place_vacate(project=project, membership=membership, now=timezone.now())
    leases = list(
        Assignment.objects.select_for_update()
        .filter(project=project, rater_id=membership.user_id, status=Assignment.Status.ACTIVE)
        .order_by()
        .values_list("id", "item_id")
    )
    assignment_leases_release(leases)
    judged = []
    if judged_too:
        judged = sorted(
            Assignment.objects.filter(
                project=project,
                rater_id=membership.user_id,
                status=Assignment.Status.DONE,
                served_as__in=[Assignment.ServedAs.WORK, Assignment.ServedAs.DEGRADED],
            ).values_list("item_id", flat=True)
        )
        for start in range(0, len(judged), BATCH_SIZE):  # items in id order, the lock order
            Item.objects.filter(pk__in=judged[start : start + BATCH_SIZE]).update(n_target=F("n_target") + 1)
    return AllocationRelease(
        rater=membership.user.username,
        leases=len(leases),
        judged_slots=len(judged),
        place=place,
        hold_minutes=project.vacated_hold_minutes,
    )
