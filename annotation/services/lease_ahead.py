"""The screen after the rater's current one, leased while they work on the current one.

The rater's page holds that screen in memory, so that sending the current one only swaps in a page already
there while the answers go out in the background (the rater screens' bar: screen-to-screen under 100 ms).

A screen leased ahead is a lease like any other: drawn for its index in the rater's session as
assignment_next_for_rater would draw it (controls included, nothing about it tells them apart), counted against
the item's target and the rater's quota (at the quota's end there is none ahead), and expiring a lease after it
was taken if the rater leaves. A rater holds two leases at most: the current screen and the one ahead. When the
current screen is judged and the one ahead is shown (``shown_now``), its lease starts over as if it were leased
then, so the rater has a whole lease for it and its ``served_at`` is when it appeared.
No screen is leased ahead of a training screen: its answer is followed by the training feedback.
"""

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from annotation.models import Assignment
from annotation.selectors.rater_loop import assignments_running

from .assignment import assignment_lease_new, rater_loop_start


@dataclass(frozen=True)
class LeasesAhead:
    """The rater's current screen (None: no lease of theirs runs) and the screen after it (None: nothing is
    left within their quota, or the current screen is a training screen)."""

    current: Assignment | None
    ahead: Assignment | None


@transaction.atomic
def assignment_ahead_for_rater(
    *, project_id: int, rater, shown_now: bool = False, now: datetime | None = None, rng: random.Random | None = None
) -> LeasesAhead:
    """The rater's current screen and the one leased ahead of it (leased now if they hold none yet).

    ``shown_now``: the rater just judged their screen and the current one is the screen leased ahead before,
    shown to them now; its lease starts over. Raises RaterRefused as assignment_next_for_rater does; ``rng``
    (tests) as there.
    """
    now = now or timezone.now()
    membership, swept = rater_loop_start(project_id=project_id, rater=rater, now=now)
    running = assignments_running(project=membership.project, rater_id=rater.pk, now=now)
    if not running:
        return LeasesAhead(None, None)
    current = running[0]
    if shown_now:
        current.served_at, current.expires_at = now, now + timedelta(seconds=membership.project.lease_seconds)
        Assignment.objects.filter(pk=current.pk).update(served_at=current.served_at, expires_at=current.expires_at)
    if len(running) > 1:
        return LeasesAhead(current, running[1])
    if current.served_as == Assignment.ServedAs.TRAINING:
        return LeasesAhead(current, None)
    return LeasesAhead(current, assignment_lease_new(membership=membership, rater=rater, now=now, swept=swept, rng=rng))
