"""Reads of the allocation: how many places a project's design has, the design a lead sees before the study
starts (annotation.allocation_design), and a rater's quota."""

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, F, Q
from django.utils import timezone

from annotation.allocation_design import (
    MAX_PLACES,
    Design,
    design_summary,
    free_places,
    item_masks,
    places_of,
    vacated_mask,
)
from annotation.models import Assignment, Item, Membership, Project

from .item_states import WORK_ITEMS


def allocation_places(*, planned_raters: int | None, max_screens: int | None, n_slots: int) -> int:
    """The design's places: the lead's planned raters, else as many raters as the maximum needs for every
    slot, else 0 (no design: the first raters take whatever is open)."""
    if planned_raters:
        return min(planned_raters, MAX_PLACES)
    if max_screens and n_slots:
        return min(MAX_PLACES, max(1, math.ceil(n_slots / max_screens)))
    return 0


def work_targets(project: Project) -> list[tuple[int, int]]:
    """(id, raters wanted) of the project's work items, in id order."""
    return list(
        Item.objects.filter(WORK_ITEMS, project=project, n_target__gt=0).order_by("id").values_list("id", "n_target")
    )


def rater_quota(membership: Membership, project: Project) -> int | None:
    """The rater's maximum of screens: their own, else the project's; None for no cap."""
    return membership.max_screens if membership.max_screens is not None else project.max_screens_per_rater


@dataclass(frozen=True)
class DesignPreview:
    """The design as a lead sees it: per rater (place) and per pair, with what it means for agreement."""

    design: Design
    n_items: int
    n_slots: int
    max_screens: int | None
    expected_screens: int | None
    warnings: tuple[str, ...]
    holders: tuple[str, ...]  # per place, the rater holding it now ("" for none)


def _warnings(
    design: Design, *, n_slots: int, max_screens: int | None, expected: int | None, raters_per_item: int
) -> list[str]:
    found = []
    if design.places == 0:
        return [
            "No design: set a maximum of screens per rater or the number of planned raters, or the first "
            "raters to come take whatever is open and late joiners may find nothing left."
        ]
    busiest = max(design.per_place)
    if max_screens is not None and busiest > max_screens:
        found.append(
            f"A rater is planned {busiest} screens but may do at most {max_screens}: "
            f"{sum(max(0, n - max_screens) for n in design.per_place)} slots would wait for raters with "
            "quota left. Raise the maximum or plan more raters."
        )
    if expected is not None and busiest > expected:
        found.append(f"Each rater is planned about {busiest} screens, more than the {expected} expected.")
    if design.places > 1 and not design.connected:
        found.append(
            "Some raters share no unit, directly or through others: agreement cannot link every rater. "
            "Raise the double-annotated share or plan fewer raters."
        )
    short = [pair for pair in design.overlapping_pairs if pair[2] < design.min_pair_overlap]
    if short:
        found.append(
            f"{len(short)} pair{'s' if len(short) != 1 else ''} of raters planned to overlap share fewer "
            f"than {design.min_pair_overlap} units. Raise the double-annotated share, plan fewer raters "
            "or lower the minimum."
        )
    if raters_per_item > design.places >= 1:
        found.append(f"Items want {raters_per_item} raters but the design has {design.places} places.")
    return found


def allocation_design_preview(project: Project, **overrides) -> DesignPreview:
    """The design of ``project`` for its items as they are, with its allocation settings or ``overrides``
    (``planned_raters``, ``max_screens_per_rater``, ``expected_screens_per_rater``, ``min_pair_overlap``,
    as a form not yet saved has them)."""
    settings = {
        name: overrides.get(name, getattr(project, name))
        for name in ("planned_raters", "max_screens_per_rater", "expected_screens_per_rater", "min_pair_overlap")
    }
    targets = [t for _, t in work_targets(project)]
    n_slots = sum(targets)
    places = allocation_places(
        planned_raters=settings["planned_raters"], max_screens=settings["max_screens_per_rater"], n_slots=n_slots
    )
    masks = item_masks(targets, places=places, min_pair_overlap=settings["min_pair_overlap"] or 0)
    design = design_summary(masks, places=places, min_pair_overlap=settings["min_pair_overlap"] or 0)
    held = dict(
        Membership.objects.filter(project=project, plan_position__isnull=False).values_list(
            "plan_position", "user__username"
        )
    )
    return DesignPreview(
        design=design,
        n_items=len(targets),
        n_slots=n_slots,
        max_screens=settings["max_screens_per_rater"],
        expected_screens=settings["expected_screens_per_rater"],
        warnings=tuple(
            _warnings(
                design,
                n_slots=n_slots,
                max_screens=settings["max_screens_per_rater"],
                expected=settings["expected_screens_per_rater"],
                raters_per_item=project.raters_per_item,
            )
        ),
        holders=tuple(held.get(p, "") for p in range(places)),
    )


def rater_quota_list(project: Project) -> list[dict]:
    """Per rater: username, own maximum and expected screens, the one that applies, screens served, place."""
    served = dict(
        Assignment.objects.filter(project=project)
        .exclude(status=Assignment.Status.EXPIRED)
        .values("rater_id")
        .annotate(n=Count("id"))
        .values_list("rater_id", "n")
    )
    rows = []
    for m in (
        Membership.objects.filter(Q(external_name=""), project=project, role=Membership.Role.RATER)
        .select_related("user")
        .order_by("user__username")
    ):
        rows.append(
            {
                "rater_id": m.user_id,
                "username": m.user.username,
                "max_screens": m.max_screens,
                "expected_screens": m.expected_screens,
                "quota": rater_quota(m, project),
                "served": served.get(m.user_id, 0),
                "place": m.plan_position,
            }
        )
    return rows


def places_held(project_id: int) -> set[int]:
    return set(
        Membership.objects.filter(project_id=project_id, plan_position__isnull=False).values_list(
            "plan_position", flat=True
        )
    )


def places_vacated(project: Project) -> int:
    """The mask of the project's vacated places (taken once, held by no rater now)."""
    return vacated_mask(project.plan_size, places_held(project.pk), project.plan_claimed_mask)


def places_holding(project: Project, vacated: int, now: datetime) -> int:
    """Of the vacated places ``vacated`` (a mask), those vacated less than the project's hold ago: their shared
    units wait for the rater taking the place over. Read from the database, off the rater loop's project row."""
    hold, vacated_at = (
        Project.objects.filter(pk=project.pk).values_list("vacated_hold_minutes", "plan_vacated_at").get()
    )
    if not hold:
        return 0
    since = now - timedelta(minutes=hold)
    return sum(
        1 << p
        for p in places_of(vacated)
        if str(p) in vacated_at and datetime.fromisoformat(vacated_at[str(p)]) > since
    )


def _place_mask(project: Project, membership: Membership) -> int:
    """The rater's place as a mask: theirs, or the one they would take now (as allocation_place_claim), or 0."""
    if membership.plan_position is not None:
        return 1 << membership.plan_position
    free = free_places(project.plan_size, places_held(project.pk), project.plan_claimed_mask)
    return 1 << free[0] if free else 0


def allocation_open(project: Project, membership: Membership, open_items):
    """Of ``open_items`` (items open to the rater), those the design serves them: of their place (or the one
    they would take now), of vacated places (but their shared units while they are held), or of none."""
    if not project.plan_size:
        return open_items
    own, vacated = _place_mask(project, membership), places_vacated(project)
    found = open_items.annotate(in_plan=F("plan_mask").bitand(own | vacated)).filter(Q(plan_mask=0) | Q(in_plan__gt=0))
    holding = places_holding(project, vacated, timezone.now()) if vacated else 0
    if holding:
        found = found.annotate(
            in_own=F("plan_mask").bitand(own),
            held=F("plan_mask").bitand(holding),
            shared=F("plan_mask").bitand(F("plan_mask") - 1),
        ).exclude(in_own=0, held__gt=0, shared__gt=0)
    return found


def quota_left(project: Project, membership: Membership) -> int | None:
    """Screens the rater's quota has left (None: no quota)."""
    quota = rater_quota(membership, project)
    if quota is None:
        return None
    served = (
        Assignment.objects.filter(project=project, rater_id=membership.user_id)
        .exclude(status=Assignment.Status.EXPIRED)
        .count()
    )
    return max(0, quota - served)


def allocation_limits(project: Project, membership: Membership) -> bool:
    """Whether a design or a quota limits what the rater is served."""
    return bool(project.plan_size or rater_quota(membership, project) is not None)
