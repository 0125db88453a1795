"""A rater's place in the project's design (annotation.services.allocation): taken on their first screen.

Places are taken and vacated under a transaction-level advisory lock of the project, after the rater's
membership row (the lock order of annotation.services.assignment): no holder of it waits for a membership.
"""
import zlib

from django.db import connection
from django.db.models import F

from annotation.allocation_design import free_places
from annotation.models import Membership, Project

_LOCK_CLASS = zlib.crc32(b"allocation") - 2**31


def places_lock(project_id: int) -> None:
    if connection.vendor == "postgresql":  # SQLite's IMMEDIATE transactions serialise writers anyway
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_LOCK_CLASS, project_id])


def allocation_place_claim(*, project: Project, membership: Membership) -> int | None:
    """Gives the rater the lowest place of the design no rater has held yet, else the lowest vacated one
    (which is then no longer vacated); None when every place is held. The caller holds the rater's membership
    row."""
    places_lock(project.pk)
    held = set(Membership.objects.filter(project=project, plan_position__isnull=False)
               .values_list("plan_position", flat=True))
    vacated = Project.objects.filter(pk=project.pk).values_list("plan_vacated_mask", flat=True)[0]
    free = free_places(project.plan_size, held, vacated)
    if not free:
        return None
    place = free[0]
    Membership.objects.filter(pk=membership.pk).update(plan_position=place)
    membership.plan_position = place
    if vacated >> place & 1:
        Project.objects.filter(pk=project.pk).update(plan_vacated_mask=F("plan_vacated_mask").bitand(~(1 << place)))
    project.plan_vacated_mask = vacated & ~(1 << place)
    return place
