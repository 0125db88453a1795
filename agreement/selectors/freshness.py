"""How fresh a project's agreement is, and when there is none, exactly what is missing: the judgments since the
last recompute, the automatic recompute's interval, and the overlap agreement needs (items rated twice)."""

from dataclasses import dataclass, replace
from datetime import datetime

from django.db.models import Count, Max

from agreement.models import AgreementSettings, AgreementSnapshot
from annotation.models import Judgment, Project


@dataclass(frozen=True)
class Freshness:
    computed_at: datetime | None  # when the stored snapshots were computed; None: never
    n_new_judgments: int  # judgments the last recompute has not read
    auto_recompute_minutes: int  # 0: off
    auto_recompute_started_at: datetime | None
    # Read only when nothing was computed: current judgments on items that are not gold, their raters, and
    # the items judged by two raters or more.
    n_judgments: int | None = None
    n_raters: int | None = None
    n_overlap_items: int | None = None

    @property
    def missing(self) -> str | None:
        """``"overlap"`` when no item has two raters yet (nothing to compute), ``"computation"`` when there
        is overlap but nothing was computed yet, else None."""
        if self.computed_at is None:
            return "overlap" if not self.n_overlap_items else "computation"
        return None


def agreement_freshness(project: Project) -> Freshness:
    """Three queries, and three more when nothing was computed yet."""
    settings = AgreementSettings.objects.filter(project=project).first() or AgreementSettings(project=project)
    # one project's rows, read as one table: a join with its generation's row would be planned over every row
    computed_at = AgreementSnapshot.objects.for_project(project.id).aggregate(at=Max("computed_at"))["at"]
    fresh = Freshness(
        computed_at=computed_at,
        n_new_judgments=Judgment.objects.filter(project=project, id__gt=settings.judgments_seen_through).count(),
        auto_recompute_minutes=settings.auto_recompute_minutes,
        auto_recompute_started_at=settings.auto_recompute_started_at,
    )
    if computed_at is not None:
        return fresh
    judgments = Judgment.objects.filter(project=project, is_current=True, item__gold__isnull=True)
    totals = judgments.aggregate(n=Count("id"), raters=Count("rater_id", distinct=True))
    per_item = judgments.values("item_id").annotate(n=Count("rater_id", distinct=True)).order_by()
    return replace(
        fresh, n_judgments=totals["n"], n_raters=totals["raters"], n_overlap_items=per_item.filter(n__gte=2).count()
    )
