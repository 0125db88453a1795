"""Whether a crowd worker has earned their completion code: the link's minimum of judged screens, and at
most its share of screens flagged or let lapse."""

import math
from dataclasses import dataclass

from django.db.models import Count, Q

from annotation.models import Assignment
from staffing.models import ExternalLink, ExternalWorker


@dataclass(frozen=True)
class CompletionStanding:
    """Screens (distinct items) the worker was offered, judged, flagged (skipped) or let lapse, against the
    link's rule: at least ``min_judged`` judged and at most ``max_unjudged`` not judged."""

    offered: int
    judged: int
    flagged: int
    lapsed: int
    min_judged: int
    max_unjudged: int

    @property
    def earned(self) -> bool:
        return self.judged >= self.min_judged and self.offered - self.judged <= self.max_unjudged


def completion_standing(worker: ExternalWorker) -> CompletionStanding:
    """Two queries. A lapsed lease served again and judged counts as judged; one never answered counts
    against the worker like a flag."""
    rule = ExternalLink.objects.filter(project_id=worker.project_id).first() or ExternalLink()
    per_item = (
        Assignment.objects.filter(project_id=worker.project_id, rater_id=worker.user_id)
        .values("item_id")
        .order_by()
        .annotate(
            done=Count("id", filter=Q(status=Assignment.Status.DONE)),
            skipped=Count("id", filter=Q(status=Assignment.Status.SKIPPED)),
        )
    )
    offered = judged = flagged = 0
    for row in per_item:
        offered += 1
        judged += row["done"] > 0
        flagged += row["done"] == 0 and row["skipped"] > 0
    # The epsilon keeps 29 % of 100 screens at 29 (0.29 * 100 is 28.999999999999996 in floating point).
    max_unjudged = math.floor(rule.max_unjudged_share * offered + 1e-9)
    return CompletionStanding(
        offered=offered,
        judged=judged,
        flagged=flagged,
        lapsed=offered - judged - flagged,
        min_judged=rule.min_judged_screens,
        max_unjudged=max_unjudged,
    )
