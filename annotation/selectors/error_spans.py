"""Error-span judgments (ESA, MQM) as arrays, for the apps that measure and score them."""

from dataclasses import dataclass

import numpy as np
from django.db.models.functions import Length

from annotation.models import ErrorSpan, Judgment, Project

from .quality import included_judgments


@dataclass(frozen=True, eq=False)
class SpanRatings:
    """A project's current error-span judgments, one *rating* per judgment row (a rater's answer on one
    output and criterion, also when it marked no span), and their spans.

    Ratings, in judgment id order: ``judgment``, ``item``, ``output``, ``criterion``, ``rater`` (ids),
    ``system`` and ``subgroup`` (str), ``submitted_at`` (datetime64[us], UTC), ``value`` (the coded value:
    ESA's score, MQM's segment penalty), ``target_length`` / ``source_length`` (code points of the output's
    text and of the item's input). Spans, ordered by rating: ``span_rating`` (index into the ratings),
    ``side`` ("target"/"source"), ``start``, ``end`` (code points), ``severity``, ``category``, ``origin``."""

    judgment: np.ndarray
    item: np.ndarray
    output: np.ndarray
    criterion: np.ndarray
    rater: np.ndarray
    system: np.ndarray
    subgroup: np.ndarray
    submitted_at: np.ndarray
    value: np.ndarray
    target_length: np.ndarray
    source_length: np.ndarray
    span_rating: np.ndarray
    side: np.ndarray
    start: np.ndarray
    end: np.ndarray
    severity: np.ndarray
    category: np.ndarray
    origin: np.ndarray

    def __len__(self) -> int:
        return len(self.judgment)

    def of_raters(self, raters) -> "SpanRatings":
        """The ratings (and their spans) of the given rater ids only."""
        keep = np.isin(self.rater, sorted(raters))
        spans_kept = keep[self.span_rating]
        renumbered = np.cumsum(keep) - 1
        return SpanRatings(
            **{name: getattr(self, name)[keep] for name in _RATING_FIELDS},
            span_rating=renumbered[self.span_rating[spans_kept]],
            **{name: getattr(self, name)[spans_kept] for name in _SPAN_FIELDS},
        )


_RATING_FIELDS = (
    "judgment",
    "item",
    "output",
    "criterion",
    "rater",
    "system",
    "subgroup",
    "submitted_at",
    "value",
    "target_length",
    "source_length",
)
_SPAN_FIELDS = ("side", "start", "end", "severity", "category", "origin")


def span_ratings(
    project_id: int, *, criterion_id: int | None = None, include_rejected: bool = False, included_only: bool = False
) -> SpanRatings:
    """The project's current judgments and their spans; proposals the rater rejected are left out unless
    ``include_rejected`` (they are not the rater's answer). ``included_only``: only the judgments results and
    agreement count (``quality.included_judgments``: no controls, no excluded raters)."""
    if included_only:
        judgments = included_judgments(Project.objects.get(pk=project_id))
    else:
        judgments = Judgment.objects.filter(project_id=project_id, is_current=True)
    if criterion_id is not None:
        judgments = judgments.filter(criterion_id=criterion_id)
    rows = list(
        judgments.order_by("id").values_list(
            "id",
            "item_id",
            "output_id",
            "criterion_id",
            "rater_id",
            "output__system",
            "item__subgroup",
            "submitted_at",
            "value",
            Length("output__text"),
            Length("item__input"),
        )
    )
    spans = ErrorSpan.objects.filter(judgment__project_id=project_id, judgment__is_current=True)
    if included_only:
        spans = spans.filter(judgment__in=judgments.values("id"))
    if criterion_id is not None:
        spans = spans.filter(judgment__criterion_id=criterion_id)
    if not include_rejected:
        spans = spans.exclude(origin=ErrorSpan.Origin.REJECTED)
    span_rows = list(
        spans.order_by("judgment_id", "side", "start", "end", "id").values_list(
            "judgment_id", "side", "start", "end", "severity", "category", "origin"
        )
    )
    columns = list(zip(*rows, strict=True)) if rows else [()] * 11
    judgment_ids = np.asarray(columns[0], dtype=np.int64)
    span_columns = list(zip(*span_rows, strict=True)) if span_rows else [()] * 7
    times = [t.replace(tzinfo=None) for t in columns[7]]  # stored in UTC
    return SpanRatings(
        judgment=judgment_ids,
        item=np.asarray(columns[1], dtype=np.int64),
        output=np.asarray(columns[2], dtype=np.int64),
        criterion=np.asarray(columns[3], dtype=np.int64),
        rater=np.asarray(columns[4], dtype=np.int64),
        system=np.asarray(columns[5], dtype=object),
        subgroup=np.asarray(columns[6], dtype=object),
        submitted_at=np.asarray(times, dtype="datetime64[us]"),
        value=np.asarray(columns[8], dtype=float),
        target_length=np.asarray(columns[9], dtype=np.int64),
        source_length=np.asarray(columns[10], dtype=np.int64),
        span_rating=np.searchsorted(judgment_ids, np.asarray(span_columns[0], dtype=np.int64)),
        side=np.asarray(span_columns[1], dtype=object),
        start=np.asarray(span_columns[2], dtype=np.int64),
        end=np.asarray(span_columns[3], dtype=np.int64),
        severity=np.asarray(span_columns[4], dtype=object),
        category=np.asarray(span_columns[5], dtype=object),
        origin=np.asarray(span_columns[6], dtype=object),
    )
