"""How far a project has come, for its leads: item states, target slots, judgments per day, per-rater
throughput and time per item, leases held now and an estimate of the time to completion."""

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from django.db import NotSupportedError, connections
from django.db.models import Count, FloatField, Func, IntegerField, Max, Min, Q, QuerySet, Sum, Value
from django.db.models.functions import Greatest, Least, TruncDate
from django.utils import timezone

from annotation.models import Assignment, Item, Judgment, Membership, Project
from annotation.selectors.item_states import item_state_counts

from .progress_model import DayCounts, Eta, ItemProgress, LeaseHolder, Leases, ProgressSummary, RaterThroughput

# The estimate uses the slots filled in this recent window, and none when fewer were filled or the
# filling spans too short a time to give a rate.
ETA_WINDOW = timedelta(days=7)
ETA_MIN_SLOTS = 10
ETA_MIN_SPAN = timedelta(minutes=10)
MAX_DAYS_CHARTED = 366
SERVED_WORK = Q(gold__isnull=True, retired_at__isnull=True)


def _items(project: Project) -> ItemProgress:
    counts = item_state_counts(
        Item.objects.filter(project=project),
        n_items=Count("id"),
        # A retired item wants no more raters: its slots count as neither wanted nor filled.
        slots_target=Sum("n_target", filter=SERVED_WORK, default=0),
        slots_filled=Sum(Least("n_judged", "n_target", output_field=IntegerField()), filter=SERVED_WORK, default=0),
    )
    target, filled = counts["slots_target"], counts["slots_filled"]
    return ItemProgress(
        n_items=counts["n_items"],
        n_target_items=counts["complete"] + counts["in_progress"] + counts["untouched"],
        complete=counts["complete"],
        in_progress=counts["in_progress"],
        untouched=counts["untouched"],
        gold=counts["gold"],
        control=counts["control"],
        slots_target=target,
        slots_filled=filled,
        slots_remaining=target - filled,
        percent_complete=round(100 * filled / target, 1) if target else None,
    )


class SecondsBetween(Func):
    """Seconds from the first datetime to the second, as a float (fetched as such: parsing tens of
    thousands of datetimes in Python costs more than the query)."""

    arity = 2
    output_field = FloatField()

    def as_sql(self, compiler, connection, **extra):
        raise NotSupportedError(f"SecondsBetween has no SQL for {connection.vendor}")

    def as_postgresql(self, compiler, connection, **extra):
        start, end = self.source_expressions
        return Func(
            end, start, template="EXTRACT(EPOCH FROM (%(expressions)s))", arg_joiner=" - ", output_field=FloatField()
        ).as_sql(compiler, connection, **extra)

    def as_sqlite(self, compiler, connection, **extra):
        start, end = self.source_expressions
        # Django registers django_timestamp_diff (microseconds) on its SQLite connections; julianday()
        # would lose microseconds.
        return Func(
            end, start, template="(django_timestamp_diff(%(expressions)s) / 1000000.0)", output_field=FloatField()
        ).as_sql(compiler, connection, **extra)


def _median_seconds(done: QuerySet) -> tuple[float | None, dict[int, float]]:
    """The median time per screen of the ``done`` assignments, overall and by rater (a clock skew's
    negative time counts as 0)."""
    seconds = Greatest(SecondsBetween("served_at", "completed_at"), Value(0.0))
    connection = connections[done.db]
    if connection.vendor == "postgresql":
        # One scan for both: the overall median is the grouping set without the rater. percentile_cont
        # averages the two middle values, as statistics.median.
        sql, params = done.annotate(seconds=seconds).values("rater_id", "seconds").query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT GROUPING(rater_id) = 1, rater_id, percentile_cont(0.5) WITHIN GROUP "
                f"(ORDER BY seconds) FROM ({sql}) AS done GROUP BY GROUPING SETS ((rater_id), ())",
                params,
            )
            rows = cursor.fetchall()
        overall = next(median for total, _, median in rows if total)
        return overall, {rater_id: median for total, rater_id, median in rows if not total}
    # SQLite (the demo) has no percentile aggregate: its times come to Python.
    all_seconds, by_rater = [], defaultdict(list)
    for rater_id, value in done.annotate(seconds=seconds).values_list("rater_id", "seconds"):
        all_seconds.append(float(value))
        by_rater[rater_id].append(float(value))
    return (
        statistics.median(all_seconds) if all_seconds else None,
        {rater_id: statistics.median(values) for rater_id, values in by_rater.items()},
    )


def _eta(*, remaining: int, n_recent: int, first_recent: datetime | None, now: datetime) -> Eta:
    based_on = (
        f"target slots (one rater on one non-gold item) filled through the rater loop in the last "
        f"{ETA_WINDOW.days} days"
    )
    if remaining == 0:
        return Eta(status="done", seconds=0, finish_at=None, slots_per_hour=None, n_recent=n_recent, based_on=based_on)
    span = now - first_recent if first_recent else timedelta(0)
    if n_recent < ETA_MIN_SLOTS or span < ETA_MIN_SPAN:
        return Eta(
            status="not_enough_data",
            seconds=None,
            finish_at=None,
            slots_per_hour=None,
            n_recent=n_recent,
            based_on=f"{based_on}; needs at least {ETA_MIN_SLOTS} over at least "
            f"{int(ETA_MIN_SPAN.total_seconds() // 60)} minutes",
        )
    rate = n_recent / span.total_seconds()
    seconds = remaining / rate
    return Eta(
        status="estimated",
        seconds=round(seconds),
        finish_at=now + timedelta(seconds=seconds),
        slots_per_hour=round(rate * 3600, 2),
        n_recent=n_recent,
        based_on=based_on,
    )


@dataclass
class _RaterTally:
    """A rater's judgments and screens (``counts``), the days they fell on and the last of them."""

    counts: Counter[str] = field(default_factory=Counter)
    days: set[date] = field(default_factory=set)
    last_active: datetime | None = None


def _days(first: date, last: date) -> list[date]:
    first = max(first, last - timedelta(days=MAX_DAYS_CHARTED - 1))
    return [first + timedelta(days=k) for k in range((last - first).days + 1)]


def progress_summary(project: Project, *, now: datetime | None = None) -> ProgressSummary:
    """Everything the progress page shows, in seven queries whatever the project's size, each answering a
    row per rater or per rater and day at most (but on SQLite, whose medians read the times row by row).

    Days are UTC dates. Judgments are the current ones (a revision replaces its row); a screen is a done
    assignment, and its time is from serving to submission. The estimate divides the slots left by the rate
    at which slots were filled in the last ``ETA_WINDOW`` (done assignments on non-gold items).
    """
    now = now or timezone.now()
    items = _items(project)

    judgments_by_rater_day = (
        Judgment.objects.filter(project=project, is_current=True)
        .annotate(day=TruncDate("submitted_at", tzinfo=UTC))
        .values("rater_id", "day")
        .annotate(n=Count("id"), last=Max("submitted_at"))
        .order_by()
    )
    done = Assignment.objects.filter(project=project, status=Assignment.Status.DONE, completed_at__isnull=False)
    screens_by_rater_day = (
        done.annotate(day=TruncDate("completed_at", tzinfo=UTC))
        .values("rater_id", "day")
        .annotate(n=Count("id"), last=Max("completed_at"))
        .order_by()
    )
    per_day: defaultdict[date, Counter[str]] = defaultdict(Counter)
    raters: defaultdict[int, _RaterTally] = defaultdict(_RaterTally)
    for rows, counted in ((judgments_by_rater_day, "judgments"), (screens_by_rater_day, "screens")):
        for row in rows:
            per_day[row["day"]][counted] += row["n"]
            rater = raters[row["rater_id"]]
            rater.counts[counted] += row["n"]
            rater.days.add(row["day"])
            rater.last_active = max(filter(None, (rater.last_active, row["last"])))
    median_seconds, median_seconds_by_rater = _median_seconds(done)
    recent = done.filter(item__gold__isnull=True, item__n_target__gt=0, completed_at__gte=now - ETA_WINDOW).aggregate(
        n=Count("id"), first=Min("completed_at")
    )

    leases = list(
        Assignment.objects.filter(project=project, status=Assignment.Status.ACTIVE, expires_at__gt=now)
        .values("rater_id")
        .annotate(n=Count("id"), oldest=Min("served_at"))
        .order_by("-n", "oldest")
    )
    names, memberships = {}, {}
    for user_id, external_name, username, role, is_paused in Membership.objects.filter(project=project).values_list(
        "user_id", "external_name", "user__username", "role", "is_paused"
    ):
        names[user_id] = external_name or username  # as rater_names_for_project
        if role == Membership.Role.RATER:
            memberships[user_id] = is_paused

    rater_rows = []
    for rater_id in set(raters) | set(memberships):
        r = raters[rater_id]
        judgments, screens, n_days = r.counts["judgments"], r.counts["screens"], len(r.days)
        rater_rows.append(
            RaterThroughput(
                rater=names.get(rater_id, f"user {rater_id}"),
                is_paused=memberships.get(rater_id, False),
                judgments=judgments,
                screens=screens,
                active_days=n_days,
                judgments_per_day=round(judgments / n_days, 1) if n_days else None,
                screens_per_day=round(screens / n_days, 1) if n_days else None,
                last_active=r.last_active,
                median_seconds_per_item=median_seconds_by_rater.get(rater_id),
            )
        )
    rater_rows.sort(key=lambda row: (-row.judgments, row.rater))

    today = now.astimezone(UTC).date()
    days = _days(min(per_day), max(max(per_day), today)) if per_day else []
    return ProgressSummary(
        generated_at=now,
        items=items,
        median_seconds_per_item=median_seconds,
        eta=_eta(remaining=items.slots_remaining, n_recent=recent["n"], first_recent=recent["first"], now=now),
        per_day=[
            DayCounts(day=day, judgments=per_day[day]["judgments"], screens=per_day[day]["screens"]) for day in days
        ],
        raters=rater_rows,
        leases=Leases(
            n_active=sum(row["n"] for row in leases),
            oldest_age_seconds=round((now - min(row["oldest"] for row in leases)).total_seconds()) if leases else None,
            raters=[
                LeaseHolder(
                    rater=names.get(row["rater_id"], f"user {row['rater_id']}"),
                    n=row["n"],
                    oldest_age_seconds=round((now - row["oldest"]).total_seconds()),
                )
                for row in leases
            ],
        ),
    )
