"""A rater's place in the project's design (annotation.services.allocation): taken on their first screen.

Places are taken under a transaction-level advisory lock of the project, after the rater's membership row (the
lock order of annotation.services.assignment); nothing else takes that lock, so its holder waits for no one who
waits for it. A rater leaving vacates their place by clearing it on their own membership row, and records when on
the project row under the same lock (a vacated place's shared units wait that long for the rater taking it over).
"""

import zlib
from datetime import datetime

from django.db import connection
from django.db.models import F

from annotation.allocation_design import free_places
from annotation.models import Membership, Project
from annotation.selectors.allocation import places_held

_LOCK_CLASS = zlib.crc32(b"allocation") - 2**31


def _places_lock(project_id: int) -> None:
    if connection.vendor == "postgresql":  # SQLite's IMMEDIATE transactions serialise writers anyway
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_LOCK_CLASS, project_id])


def allocation_place_claim(*, project: Project, membership: Membership) -> int | None:
    """Gives the rater the lowest place of the design no rater has taken yet, else the lowest vacated one;
    None when every place is held. The caller holds the rater's membership row."""
    _places_lock(project.pk)
    claimed = Project.objects.filter(pk=project.pk).values_list("plan_claimed_mask", flat=True)[0]
    free = free_places(project.plan_size, places_held(project.pk), claimed)
    if not free:
        return None
    place = free[0]
    Membership.objects.filter(pk=membership.pk).update(plan_position=place)
    membership.plan_position = place
    if not claimed >> place & 1:
        Project.objects.filter(pk=project.pk).update(plan_claimed_mask=F("plan_claimed_mask").bitor(1 << place))
    project.plan_claimed_mask = claimed | 1 << place
    return place


def allocation_place_vacate(*, project: Project, membership: Membership, now: datetime) -> None:
    """Takes the rater off their place and records ``now`` as when the place was vacated. The caller holds the
    rater's membership row."""
    place = membership.plan_position
    Membership.objects.filter(pk=membership.pk).update(plan_position=None)
    membership.plan_position = None
    _places_lock(project.pk)
    vacated_at = Project.objects.filter(pk=project.pk).values_list("plan_vacated_at", flat=True)[0]
    vacated_at = {**vacated_at, str(place): now.isoformat()}
    Project.objects.filter(pk=project.pk).update(plan_vacated_at=vacated_at)
    project.plan_vacated_at = vacated_at
