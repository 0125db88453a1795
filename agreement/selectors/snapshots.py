"""Stored snapshots for the API and the dashboard."""

from datetime import date

from django.db.models import Max, QuerySet

from agreement.models import AgreementSnapshot
from annotation.models import Project
from annotation.selectors.judgments import rater_ids_named


def latest_week(project: Project) -> date | None:
    """Every computed week has cumulative rows, so the latest is read off the unique index's
    (project, generation, window, week_start) prefix in one step instead of scanning every row of the project."""
    cumulative = AgreementSnapshot.objects.for_project(project.id).filter(window=AgreementSnapshot.Window.CUMULATIVE)
    return cumulative.aggregate(w=Max("week_start"))["w"]


def snapshot_list(
    project: Project,
    *,
    week: date | None = None,
    window: str | None = None,
    criterion: str | None = None,
    pair: tuple[str, str] | None = None,
    subgroup: str | None = None,
    statistic: str | None = None,
    scope: str | None = None,
    rating_unit: str | None = None,
    all_weeks: bool = False,
) -> QuerySet[AgreementSnapshot]:
    """Snapshots of one week (default: the latest computed) or of every week with ``all_weeks``.

    ``pair`` takes two rater names (usernames, or rater ids of an imported study).
    """
    snapshots = (
        AgreementSnapshot.objects.filter(project=project)
        .select_related("criterion", "rater_a", "rater_b")
        .order_by("week_start", "window", "scope", "scope_key", "statistic")
    )
    if not all_weeks:
        snapshots = snapshots.filter(week_start=week or latest_week(project))
    if window:
        snapshots = snapshots.filter(window=window)
    if criterion:
        snapshots = snapshots.filter(criterion__name=criterion)
    if subgroup:
        snapshots = snapshots.filter(subgroup=subgroup)
    if statistic:
        snapshots = snapshots.filter(statistic=statistic)
    if scope:
        snapshots = snapshots.filter(scope=scope)
    if rating_unit:
        snapshots = snapshots.filter(rating_unit=rating_unit)
    if pair:
        ids = [rater_ids_named(project, name) for name in pair]
        snapshots = snapshots.filter(
            scope=AgreementSnapshot.Scope.PAIR, rater_a__in=ids[0] + ids[1], rater_b__in=ids[0] + ids[1]
        )
    return snapshots
