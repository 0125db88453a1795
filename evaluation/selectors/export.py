"""What a dataset export reads: items, judgments, per-output scores and raters as batches of plain rows
(server-side cursors, never a whole table in memory), and the small aggregates its data card states."""

import bisect
import heapq
import json
import math
import queue
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from operator import itemgetter
from typing import Any

from django.db import connection
from django.db.models import (
    Aggregate,
    Avg,
    BooleanField,
    Count,
    ExpressionWrapper,
    F,
    FilteredRelation,
    FloatField,
    Func,
    Max,
    Min,
    Q,
    QuerySet,
    TextField,
)
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from agreement.selectors.dashboard_model import SnapshotFigures
from annotation.models import (
    AdjudicatedSpan,
    AdjudicatedValue,
    Criterion,
    ErrorSpan,
    Item,
    Judgment,
    Membership,
    Output,
    Project,
    ProposedSpan,
)
from annotation.selectors.quality import ON_WORK_ITEMS
from annotation.task_types import REGISTRY
from annotation.task_types.facts import CONTINUOUS, OUTCOME, POINTS, SPANS
from evaluation.export.card_facts import (
    AgreementFacts,
    CardCounts,
    CriterionFacts,
    Estimate,
    Exclusions,
    Limitation,
    OffScaleValues,
    QcFacts,
    QcRuleVersion,
    Quantiles,
    RaterPairEstimate,
    RaterPairs,
    SubgroupCounts,
    SystemMean,
    SystemTally,
    TrendPoint,
)

from . import ratings

# Rows fetched per round trip and handed to the writers at once: 10,000 judgment rows are ~3 MB of
# Python tuples, enough to amortise the round trip and small enough to keep memory flat.
CHUNK_ROWS = 10_000

# Items carry their texts (often a few kB with their outputs): 2,000 at a time keep each batch near 5 MB.
ITEM_CHUNK = 2_000

NO_SUBGROUP = ""


@dataclass(frozen=True)
class ExportScope:
    """What one export covers: the project up to the judgment and item ids that existed when it
    started (rows added meanwhile wait for the next export, so every table and the card agree), the
    name each rater is given, and the raters that quality control excludes."""

    project: Project
    max_judgment_id: int
    max_item_id: int
    rater_names: dict[int, str]
    excluded: frozenset[int]
    include_excluded: bool
    by_subgroup: bool
    # (item external id, system, criterion name, turn) → the adjudicated answer as the judgments' value column gives it
    adjudicated: dict = field(default_factory=dict)
    # the judgments table has the ``adjudicated`` column (the project has a rule, or adjudicated answers)
    adjudication: bool = False

    @property
    def outcomes(self) -> bool:
        """Judgments are outcomes of the item's first output against its second."""
        return REGISTRY[self.project.task_type].values.kind == OUTCOME

    def judgments(self) -> QuerySet[Judgment]:
        """Current judgments in the export (gold items included, flagged; excluded raters unless
        left out by the options)."""
        judgments = Judgment.objects.filter(
            project=self.project, is_current=True, id__lte=self.max_judgment_id, item_id__lte=self.max_item_id
        )
        if self.excluded and not self.include_excluded:
            judgments = judgments.exclude(rater_id__in=self.excluded)
        return judgments

    def included(self) -> QuerySet[Judgment]:
        """The judgments results and scores use: ``included_judgments`` (annotation's quality control
        decides), cut at the export's ids."""
        return ratings.included_judgments(self.project).filter(
            id__lte=self.max_judgment_id, item_id__lte=self.max_item_id
        )

    def items(self) -> QuerySet[Item]:
        return Item.objects.filter(project=self.project, id__lte=self.max_item_id)


def rater_pseudonyms(project: Project, *, max_judgment_id: int) -> dict[int, str]:
    """``rater-001``, ``rater-002``… numbered by each rater's first judgment in the project: stable from
    one export to the next (later raters get later numbers) and free of any account data."""
    first = (
        Judgment.objects.filter(project=project, id__lte=max_judgment_id)
        .values("rater_id")
        .annotate(first=Min("id"))
        .order_by("first")
        .values_list("rater_id", flat=True)
    )
    ids = list(first)
    width = max(3, len(str(len(ids))))
    return {rater_id: f"rater-{k:0{width}d}" for k, rater_id in enumerate(ids, start=1)}


def rater_usernames(project: Project) -> dict[int, str]:
    """Usernames (the imported study's rater id for imported raters); emails are never exported."""
    names = dict(Membership.objects.filter(project=project).values_list("user_id", "user__username").iterator())
    imported = Membership.objects.filter(project=project).exclude(external_name="")
    names.update(imported.values_list("user_id", "external_name"))
    missing = set(Judgment.objects.filter(project=project).values_list("rater_id", flat=True).distinct()) - set(names)
    if missing:  # raters who left the project keep their judgments
        from django.contrib.auth import get_user_model

        names.update(get_user_model().objects.filter(id__in=missing).values_list("id", "username"))
    return names


def export_scope(
    project: Project, *, include_usernames: bool, include_excluded: bool, by_subgroup: bool
) -> ExportScope:
    max_judgment_id = Judgment.objects.filter(project=project).aggregate(m=Max("id"))["m"] or 0
    max_item_id = Item.objects.filter(project=project).aggregate(m=Max("id"))["m"] or 0
    names = (
        rater_usernames(project) if include_usernames else rater_pseudonyms(project, max_judgment_id=max_judgment_id)
    )
    adjudicated = _adjudicated_answers(project, max_item_id=max_item_id)
    return ExportScope(
        adjudicated=adjudicated,
        adjudication=project.adjudicate or bool(adjudicated),
        project=project,
        max_judgment_id=max_judgment_id,
        max_item_id=max_item_id,
        rater_names=names,
        excluded=frozenset(ratings.excluded_rater_ids(project)),
        include_excluded=include_excluded,
        by_subgroup=by_subgroup,
    )


def _adjudicated_answers(project: Project, *, max_item_id: int) -> dict[tuple[str, str, str, int | None], object]:
    """The adjudicated answers keyed as judgment rows name their unit (with the assistant turn, None for the whole
    output), coded as their ``value`` column is."""
    kind = REGISTRY[project.task_type].values.kind
    rows = AdjudicatedValue.objects.filter(case__project=project, case__item_id__lte=max_item_id).values_list(
        "case__item__external_id", "output__system", "criterion__name", "turn", "value", "label"
    )
    return {
        (item, system, criterion, turn): label if kind == OUTCOME else int(value) if kind == POINTS else value
        for item, system, criterion, turn, value, label in rows
    }


def stream_rows(rows: QuerySet, *, chunk: int | None = None) -> Iterator[tuple]:
    """The rows of a ``values_list`` queryset, in its field order, from a server-side cursor.

    On PostgreSQL the rows come as the driver reads them (Django's iterator would convert each one in
    Python; export rows need no conversion), and a helper thread fetches the next CHUNK_ROWS while
    the caller writes the last ones, so the database's work and the writing overlap. At most
    PREFETCH_CHUNKS chunks wait in between: memory stays flat.
    """
    chunk = chunk or CHUNK_ROWS
    query = rows.query
    if connection.vendor != "postgresql":  # other databases need Django's conversions (dates from text)
        yield from rows.iterator(chunk_size=chunk)
        return
    # Django 5.2 selects in values_list order (query.selected); earlier versions put annotations last
    selected = list(
        getattr(query, "selected", None) or [*query.extra_select, *query.values_select, *query.annotation_select]
    )
    order = [selected.index(name) for name in rows._fields] if rows._fields else list(range(len(selected)))
    identity = order == list(range(len(selected)))
    sql, params = query.sql_with_params()
    with connection.chunked_cursor() as cursor:
        cursor.execute(sql, params)
        for fetched in _prefetched(cursor, chunk):
            if identity:
                yield from fetched
            else:
                for row in fetched:
                    yield tuple(row[k] for k in order)


PREFETCH_CHUNKS = 2


def _prefetched(cursor, size: int) -> Iterator[list]:
    """Chunks of ``cursor.fetchmany`` read by a helper thread, PREFETCH_CHUNKS ahead of the caller.

    The thread only fetches from the cursor the caller opened (the driver's connection is thread-safe
    and waits on the network without holding the GIL); the caller stops it when it stops reading."""
    chunks: queue.Queue = queue.Queue(maxsize=PREFETCH_CHUNKS)
    stop = threading.Event()

    def fetch():
        try:
            while not stop.is_set():
                chunk = cursor.fetchmany(size)
                while not stop.is_set():
                    try:
                        chunks.put(chunk, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if not chunk:
                    return
        except BaseException as exc:  # handed to the caller, which raises it
            chunks.put(exc)

    thread = threading.Thread(target=fetch, name="export-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            chunk = chunks.get()
            if isinstance(chunk, BaseException):
                raise chunk
            if not chunk:
                return
            yield chunk
    finally:
        stop.set()
        thread.join()


class IsoUtc(Func):
    """PostgreSQL: a timestamp as the text Python's ``isoformat`` gives in UTC, with ``Z``
    (``2024-03-01T10:00:00Z``, microseconds only when there are some). Formatting a million dates in the
    database takes a fraction of a second; parsing and formatting them in Python takes seconds."""

    template = (
        "CASE WHEN date_trunc('second', %(expressions)s) = %(expressions)s "
        "THEN to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') "
        "ELSE to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') END"
    )
    output_field = TextField()


class _JsonTexts:
    """Decodes JSON column text once per distinct value (display orders repeat across judgments)."""

    def __init__(self):
        self.cache: dict[str, object] = {}

    def __call__(self, text):
        if text is None:
            return None
        value = self.cache.get(text)
        if value is None:
            value = json.loads(text)
            if len(self.cache) < 10_000:
                self.cache[text] = value
        return value


def _batches(
    rows: Iterator[tuple], by_subgroup: bool, convert, size: int | None = None
) -> Iterator[tuple[str, list[tuple]]]:
    """(subgroup, rows) batches of at most ``size`` converted rows; the first field of each raw row
    is its subgroup, and rows arrive ordered by it when ``by_subgroup``."""
    batch: list[tuple] = []
    current, size = NO_SUBGROUP, size or CHUNK_ROWS
    for raw in rows:
        key = raw[0] if by_subgroup else NO_SUBGROUP
        if key != current and batch:
            yield current, batch
            batch = []
        current = key
        batch.append(convert(raw))
        if len(batch) >= size:
            yield current, batch
            batch = []
    if batch:
        yield current, batch


# --- Items --------------------------------------------------------------------------------------------


def _json_value(value):
    """A JSON column as Python data: PostgreSQL rows read raw carry its text, Django's rows the value."""
    return json.loads(value) if value.__class__ is str else value


def item_batches(scope: ExportScope) -> Iterator[tuple[str, list[tuple]]]:
    """Items exactly as the item import reads them (external_id, input, references, outputs, subgroup,
    meta, gold): a gold item is one whose ``gold`` holds its expected answers. Items and outputs are
    read as two streams in the same order and merged, one pass each."""
    by_subgroup = ["subgroup"] if scope.by_subgroup else []
    items = stream_rows(
        scope.items()
        .order_by(*by_subgroup, "id")
        .values_list("id", "subgroup", "external_id", "input", "turns", "references", "meta", "gold"),
        chunk=ITEM_CHUNK,
    )
    outputs = stream_rows(
        Output.objects.filter(item__project=scope.project, item_id__lte=scope.max_item_id)
        .order_by(*(f"item__{f}" for f in by_subgroup), "item_id", "position")
        .values_list("item_id", "system", "text", "id", "turns"),
        chunk=ITEM_CHUNK,
    )
    proposals = _proposals(scope) if REGISTRY[scope.project.task_type].values.kind == SPANS else {}

    def merged():
        pending = next(outputs, None)
        for item_id, subgroup, external_id, text, turns, references, meta, gold in items:
            mine = []
            while pending is not None and pending[0] == item_id:
                output = {"system": pending[1], "text": pending[2]}
                if pending[4] is not None:  # JSONL re-imports a whole-conversation output; CSV and Parquet: its text
                    output["turns"] = _json_value(pending[4])
                if pending[3] in proposals:
                    output["proposed_spans"] = proposals[pending[3]]
                mine.append(output)
                pending = next(outputs, None)
            if not mine:
                raise RuntimeError(f"item {external_id!r}: its outputs are out of step with the items")
            row = (
                external_id,
                text,
                _json_value(turns),
                _json_value(references),
                mine,
                subgroup,
                _json_value(meta),
                _json_value(gold),
            )
            yield subgroup, row

    yield from _batches(merged(), scope.by_subgroup, itemgetter(1), ITEM_CHUNK)


def _proposals(scope: ExportScope) -> dict[int, list[dict]]:
    """A model's proposed spans per output id (ESA-AI), as the item import takes them (JSONL: a line re-imports
    with them; CSV and Parquet leave them out)."""
    out: dict[int, list[dict]] = {}
    rows = (
        ProposedSpan.objects.filter(output__item__project=scope.project, output__item_id__lte=scope.max_item_id)
        .order_by("output_id", "side", "start", "end", "id")
        .values_list("output_id", "side", "start", "end", "severity", "category")
    )
    for output_id, side, start, end, severity, category in rows.iterator(chunk_size=CHUNK_ROWS):
        span = {"start": start, "end": end, "severity": severity, "side": side}
        if category:
            span["category"] = category
        out.setdefault(output_id, []).append(span)
    return out


def max_outputs_per_item(scope: ExportScope) -> int:
    return (
        Output.objects.filter(item__project=scope.project, item_id__lte=scope.max_item_id).aggregate(m=Max("position"))[
            "m"
        ]
        or 0
    ) + 1


# --- Judgments ----------------------------------------------------------------------------------------


def judgment_batches(
    scope: ExportScope, *, subgroups: tuple[str, ...] | None = None
) -> Iterator[tuple[str, list[tuple]]]:
    """One row per current judgment (of the items of ``subgroups`` only, when given): the judgment import's fields
    first (item, system, criterion, rater, value, submitted_at, shown_order, duration_ms, turn), then subgroup,
    [pairwise: system_b, outcome, sampling_probability], served_at, source, gold_item, retired_item, excluded."""
    judgments = scope.judgments()
    if subgroups is not None:
        judgments = judgments.filter(item__subgroup__in=subgroups)
    judgments = judgments.annotate(
        gold_item=ExpressionWrapper(Q(item__gold__isnull=False), output_field=BooleanField()),
        retired_item=ExpressionWrapper(Q(item__retired_at__isnull=False), output_field=BooleanField()),
        shown_order_text=Cast("shown_order", TextField()),
    )
    submitted, served = "submitted_at", "served_at"
    if connection.vendor == "postgresql":
        judgments = judgments.annotate(submitted_text=IsoUtc("submitted_at"), served_text=IsoUtc("served_at"))
        submitted, served = "submitted_text", "served_text"
    fields = [
        "item__subgroup",
        "item__external_id",
        "output__system",
        "criterion__name",
        "rater_id",
        "value",
        "label",
        submitted,
        "shown_order_text",
        "duration_ms",
        served,
        "source",
        "gold_item",
        "retired_item",
        "turn",
    ]
    if scope.outcomes:
        judgments = judgments.annotate(second=FilteredRelation("item__outputs", condition=Q(item__outputs__position=1)))
        fields += ["second__system", "sampling_probability"]
    judgments = judgments.order_by(*(["item__subgroup", "id"] if scope.by_subgroup else ["id"]))
    names, excluded, order = scope.rater_names, scope.excluded, _JsonTexts()
    integer = REGISTRY[scope.project.task_type].values.kind == POINTS

    if scope.outcomes:

        def convert(row):
            (
                subgroup,
                item,
                system,
                crit,
                rater,
                value,
                label,
                submitted,
                shown,
                ms,
                served,
                source,
                gold,
                retired,
                turn,
                second,
                probability,
            ) = row
            return (item, system, crit, names[rater], label, submitted, order(shown), ms, turn, subgroup, second,
                    int(value), probability, served, source, bool(gold), bool(retired), rater in excluded)  # fmt: skip
    else:

        def convert(row):
            (subgroup, item, system, crit, rater, value, label, submitted, shown, ms, served, source, gold, retired,
             turn) = row  # fmt: skip
            return (item, system, crit, names[rater], int(value) if integer else value, submitted, order(shown), ms,
                    turn, subgroup, served, source, bool(gold), bool(retired), rater in excluded)  # fmt: skip

    rows = stream_rows(judgments.values_list(*fields))
    if scope.adjudication:
        adjudicated = scope.adjudicated

        def with_adjudicated(row):  # the item's external id, the system, the criterion and the turn
            out = convert(row)
            return (*out, adjudicated.get((out[0], out[1], out[2], out[8])))

        yield from _batches(rows, scope.by_subgroup, with_adjudicated)
        return
    yield from _batches(rows, scope.by_subgroup, convert)


# --- Scores per output and criterion ------------------------------------------------------------------


# The fields of a span row, a rater's (ErrorSpan) or an adjudicated answer's (AdjudicatedSpan).
SPAN_FIELDS = ("side", "start", "end", "severity", "category", "origin")
# Stands for the rater of an adjudicated span while the spans table's two streams are merged.
ADJUDICATOR = object()


def span_batches(scope: ExportScope) -> Iterator[tuple[str, list[tuple]]]:
    """One row per error span of the exported judgments (rejected proposals included, as their origin says),
    in the judgments' order: item, system, criterion, rater, side, start, end, severity, category, origin and the
    answered proposal's index in its output's proposed spans; where the project adjudicates, ``adjudicated``
    too, and after the raters' spans (of each subgroup) the adjudicated answers' spans, rater and proposal
    empty."""
    spans = ErrorSpan.objects.filter(judgment__in=scope.judgments().values("id"))
    order = ["judgment__item__subgroup"] if scope.by_subgroup else []
    spans = spans.order_by(*order, "judgment_id", "side", "start", "end", "id").values_list(
        "judgment__item__subgroup",
        "judgment__item__external_id",
        "judgment__output__system",
        "judgment__criterion__name",
        "judgment__rater_id",
        *SPAN_FIELDS,
        "proposal_id",
    )
    names = scope.rater_names
    proposal_index: dict[int, int] = {}
    next_index: dict[int, int] = {}
    for output_id, proposal_id in (
        ProposedSpan.objects.filter(output__item__project=scope.project)
        .order_by("output_id", "side", "start", "end", "id")
        .values_list("output_id", "id")
        .iterator(chunk_size=CHUNK_ROWS)
    ):
        proposal_index[proposal_id] = next_index.get(output_id, 0)
        next_index[output_id] = proposal_index[proposal_id] + 1

    def convert(row):
        _, item, system, criterion, rater, side, start, end, severity, category, origin, proposal = row
        at = proposal_index.get(proposal) if proposal is not None else None
        return (item, system, criterion, names[rater], side, start, end, severity, category, origin, at)

    if not scope.adjudication:
        yield from _batches(stream_rows(spans), scope.by_subgroup, convert)
        return

    def convert_flagged(row):
        if row[4] is ADJUDICATOR:
            return (*row[1:4], None, *row[5:], None, True)
        return (*convert(row), False)

    adjudicated = (
        AdjudicatedSpan.objects.filter(value__case__project=scope.project, value__case__item_id__lte=scope.max_item_id)
        .order_by(*(["value__case__item__subgroup"] if scope.by_subgroup else []), "value_id", "side", "start", "id")
        .values_list(
            "value__case__item__subgroup",
            "value__case__item__external_id",
            "value__output__system",
            "value__criterion__name",
            *SPAN_FIELDS,
        )
    )
    # Both streams come in subgroup order when split by it: merged, each subgroup's file is written at once.
    group = (lambda row: row[0]) if scope.by_subgroup else (lambda row: "")
    merged = heapq.merge(
        ((group(row), 0, row) for row in stream_rows(spans)),
        ((group(row), 1, (*row[:4], ADJUDICATOR, *row[4:])) for row in adjudicated.iterator(chunk_size=CHUNK_ROWS)),
        key=lambda entry: entry[:2],
    )
    yield from _batches((row for *_, row in merged), scope.by_subgroup, convert_flagged)


def score_batches(scope: ExportScope) -> Iterator[tuple[str, list[tuple]]]:
    """Aggregates of the included judgments (no gold items, no excluded raters) per output and
    criterion: n, mean, sample sd, min, max (likert, rankme); n, wins, ties, losses and win rate of
    each system of the pair (pairwise, from that system's side)."""
    order = ["item__subgroup"] if scope.by_subgroup else []
    if scope.outcomes:
        rows = (
            scope.included()
            .annotate(second=FilteredRelation("item__outputs", condition=Q(item__outputs__position=1)))
            .values("item_id", "criterion_id")
            .annotate(
                n=Count("id"),
                wins=Count("id", filter=Q(value=2)),
                ties=Count("id", filter=Q(value=1)),
                losses=Count("id", filter=Q(value=0)),
            )
            .order_by(*order, "item_id", "criterion__position", "criterion_id")
            .values_list(
                "item__subgroup",
                "item__external_id",
                "output__system",
                "second__system",
                "criterion__name",
                "n",
                "wins",
                "ties",
                "losses",
            )
        )

        def pairs(raw_rows):
            for sg, item, first, second, crit, n, wins, ties, losses in raw_rows:
                yield (sg, item, first, second, crit, n, wins, ties, losses)
                yield (sg, item, second, first, crit, n, losses, ties, wins)

        def convert_pair(r):
            sg, item, system, opponent, crit, n, wins, ties, losses = r
            return (item, system, opponent, crit, sg, n, wins, ties, losses, (wins + ties / 2) / n)

        yield from _batches(pairs(rows.iterator(chunk_size=CHUNK_ROWS)), scope.by_subgroup, convert_pair)
        return
    rows = (
        scope.included()
        .values("output_id", "criterion_id")
        .annotate(
            n=Count("id"),
            mean=Avg("value"),
            mean_sq=Avg(F("value") * F("value")),
            low=Min("value"),
            high=Max("value"),
        )
        .order_by(*order, "item_id", "output__position", "criterion__position", "criterion_id")
        .values_list(
            "item__subgroup",
            "item__external_id",
            "output__system",
            "criterion__name",
            "n",
            "mean",
            "mean_sq",
            "low",
            "high",
        )
    )

    def convert(r):
        sg, item, system, crit, n, mean, mean_sq, low, high = r
        sd = math.sqrt(max(0.0, mean_sq - mean * mean) * n / (n - 1)) if n > 1 else None
        return (item, system, crit, sg, n, mean, sd, low, high)

    yield from _batches(rows.iterator(chunk_size=CHUNK_ROWS), scope.by_subgroup, convert)


# --- Raters -------------------------------------------------------------------------------------------


def rater_rows(scope: ExportScope) -> list[tuple]:
    """One row per rater with a judgment in the export: name, judgments, items, judgments on gold items,
    where the judgments came from (rater = this platform's rating screens, import = a study run
    elsewhere), excluded by quality control."""
    rows = (
        scope.judgments()
        .values("rater_id")
        .annotate(
            n=Count("id"),
            n_items=Count("item_id", distinct=True),
            n_gold=Count("id", filter=Q(item__gold__isnull=False)),
            n_imported=Count("id", filter=Q(source=Judgment.Source.IMPORT)),
        )
        .values_list("rater_id", "n", "n_items", "n_gold", "n_imported")
    )
    out = []
    for rater_id, n, n_items, n_gold, n_imported in rows:
        source = "import" if n_imported == n else ("rater" if n_imported == 0 else "both")
        out.append((scope.rater_names[rater_id], n, n_items, n_gold, source, rater_id in scope.excluded))
    return sorted(out)


# --- Facts for the data card --------------------------------------------------------------------------


def criteria_for_card(project: Project) -> tuple[CriterionFacts, ...]:
    return tuple(
        CriterionFacts(
            name=c.name,
            scale_min=c.scale_min,
            scale_max=c.scale_max,
            labels=tuple(c.labels or ()),
            help_text=c.help_text,
        )
        for c in Criterion.objects.filter(project=project).order_by("position", "id")
    )


def label_distributions(scope: ExportScope) -> dict[str, dict[str, int]]:
    """Per criterion, how often each value was given in the included judgments: counts per scale point
    (likert), per outcome for the first output as imported (pairwise), per tenth of the scale (rankme)."""
    criteria = Criterion.objects.filter(project=scope.project).order_by("position", "id")
    out: dict[str, dict[str, int]] = {c.name: {} for c in criteria}
    values = REGISTRY[scope.project.task_type].values
    if values.kind == CONTINUOUS and scope.project.rankme_modulus is not None:
        return _modulus_distributions(scope, criteria)
    if values.kind == SPANS and any(c.scale_min is None for c in criteria):
        return _penalty_distributions(scope, criteria)
    if values.kind in (CONTINUOUS, SPANS):
        for c in criteria:
            low, high = c.scale_min, c.scale_max
            width = (high - low) / 10
            counts: Counter[int] = Counter()
            for value, n in (
                scope.included().filter(criterion=c).values("value").annotate(n=Count("id")).values_list("value", "n")
            ):
                counts[min(9, int((value - low) // width))] += n
            out[c.name] = {f"{low + k * width:g}–{low + (k + 1) * width:g}": counts.get(k, 0) for k in range(10)}
        return out
    rows = (
        scope.included()
        .values("criterion__name", "value")
        .annotate(n=Count("id"))
        .values_list("criterion__name", "value", "n")
    )
    given = {(name, value): n for name, value, n in rows}
    for c in criteria:
        if scope.outcomes:
            points = list(zip(values.outcomes, values.distribution_labels, strict=True))
        else:
            points = [(float(v), f"{v:g}") for v in range(int(c.scale_min), int(c.scale_max) + 1)]
        out[c.name] = {label: given.get((c.name, value), 0) for value, label in points}
    return out


# Penalties (MQM: the sum of an output's error weights, no upper bound) binned per unit up to this, then one bin.
PENALTY_BINS = 10


def _penalty_distributions(scope: ExportScope, criteria) -> dict[str, dict[str, int]]:
    labels = [f"{k}–{k + 1}" for k in range(PENALTY_BINS)] + [f"{PENALTY_BINS} and above"]
    out = {}
    for c in criteria:
        counts: Counter[int] = Counter()
        rows = scope.included().filter(criterion=c).values("value").annotate(n=Count("id")).values_list("value", "n")
        for value, n in rows:
            counts[min(PENALTY_BINS, int(value))] += n
        out[c.name] = {label: counts.get(k, 0) for k, label in enumerate(labels)}
    return out


# Magnitude estimates binned by doublings of the modulus m: below m/8, m/8–m/4, …, 4m–8m, from 8m.
MODULUS_DOUBLINGS = 3


def _modulus_distributions(scope: ExportScope, criteria) -> dict[str, dict[str, int]]:
    m = scope.project.rankme_modulus
    edges = [m * 2.0**k for k in range(-MODULUS_DOUBLINGS, MODULUS_DOUBLINGS + 1)]
    labels = (
        [f"below {edges[0]:g}"]
        + [f"{low:g}–{high:g}" for low, high in zip(edges, edges[1:], strict=False)]
        + [f"{edges[-1]:g} and above"]
    )
    out = {}
    for c in criteria:
        counts: Counter[int] = Counter()
        rows = scope.included().filter(criterion=c).values("value").annotate(n=Count("id")).values_list("value", "n")
        for value, n in rows:
            counts[bisect.bisect_right(edges, value)] += n
        out[c.name] = {label: counts.get(k, 0) for k, label in enumerate(labels)}
    return out


def _quantiles(values: list[int]) -> Quantiles:
    if not values:
        return Quantiles(min=None, q1=None, median=None, q3=None, max=None, mean=None)
    values = sorted(values)

    def at(share):  # linear interpolation between order statistics (numpy's default method)
        position = share * (len(values) - 1)
        low = math.floor(position)
        high = min(low + 1, len(values) - 1)
        return values[low] + (values[high] - values[low]) * (position - low)

    return Quantiles(
        min=values[0], q1=at(0.25), median=at(0.5), q3=at(0.75), max=values[-1], mean=sum(values) / len(values)
    )


class _Median(Aggregate):
    """PostgreSQL's interpolated median, ``percentile_cont(0.5)``."""

    function = "percentile_cont"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()


def _median_duration(timed: QuerySet) -> float | None:
    """Median time on a screen: in the database on PostgreSQL, else the middle row(s) in order."""
    if connection.vendor == "postgresql":
        return timed.aggregate(m=_Median("duration_ms"))["m"]
    n = timed.count()
    middle = timed.order_by("duration_ms").values_list("duration_ms", flat=True)
    values = list(middle[(n - 1) // 2 : n // 2 + 1])
    return sum(values) / len(values) if values else None


@dataclass(frozen=True)
class ExportSizes:
    """The counts the export's progress, its split files and its card all need, read once."""

    items_by_subgroup: dict[str, int]  # in subgroup order
    n_gold_items: int
    raters: list[tuple]  # rater_rows: the raters table, whose second column is each rater's judgments

    @property
    def n_items(self) -> int:
        return sum(self.items_by_subgroup.values())

    @property
    def judgments_per_rater(self) -> list[int]:
        return [row[1] for row in self.raters]

    @property
    def n_judgments(self) -> int:
        return sum(self.judgments_per_rater)


def export_sizes(scope: ExportScope) -> ExportSizes:
    by_subgroup = list(
        scope.items().values("subgroup")
        .annotate(n=Count("id"), n_gold=Count("id", filter=Q(gold__isnull=False)))
        .order_by("subgroup").values_list("subgroup", "n", "n_gold")
    )  # fmt: skip
    return ExportSizes(
        items_by_subgroup={subgroup: n for subgroup, n, _ in by_subgroup},
        n_gold_items=sum(n_gold for *_, n_gold in by_subgroup),
        raters=rater_rows(scope),
    )


def card_counts(scope: ExportScope, sizes: ExportSizes) -> CardCounts:
    """Counts the card states about items, outputs, systems, subgroups, raters and the design."""
    project = scope.project
    items = scope.items()
    judgments = scope.judgments()
    systems = dict(
        Output.objects.filter(item__project=project, item_id__lte=scope.max_item_id)
        .values("system")
        .annotate(n=Count("id"))
        .order_by("system")
        .values_list("system", "n")
    )
    outputs_per_item = Counter(
        n for n in items.annotate(n=Count("outputs")).values_list("n", flat=True).iterator(chunk_size=CHUNK_ROWS)
    )
    subgroup_judgments = dict(
        judgments.values("item__subgroup").annotate(n=Count("id")).order_by().values_list("item__subgroup", "n")
    )
    raters_per_item = Counter(
        n
        for n in judgments.filter(item__gold__isnull=True)
        .values("item_id")
        .annotate(n=Count("rater_id", distinct=True))
        .order_by()
        .values_list("n", flat=True)
        .iterator(chunk_size=CHUNK_ROWS)
    )
    # one pass over the judgments for every per-judgment count the card states
    in_export = Q() if scope.include_excluded or not scope.excluded else ~Q(rater_id__in=scope.excluded)
    gold = Q(item__gold__isnull=False)
    excluded = Q(rater_id__in=scope.excluded) if scope.excluded else Q(pk__in=[])
    ordered = in_export & ~Q(shown_order=[])
    totals = (
        Judgment.objects.filter(project=project, is_current=True, id__lte=scope.max_judgment_id,
                                item_id__lte=scope.max_item_id)
        .annotate(first_shown=KT("shown_order__0"))
        .aggregate(
            n_ordered=Count("id", filter=ordered),
            n_first_shown=Count("id", filter=ordered & Q(first_shown=F("output__system"))),
            n_durations=Count("id", filter=in_export & Q(duration_ms__isnull=False)),
            n_included=Count("id", filter=ON_WORK_ITEMS & ~excluded),  # as included_judgments
            n_gold=Count("id", filter=gold),
            n_excluded=Count("id", filter=~gold & excluded),
            n_rater=Count("id", filter=in_export & Q(source=Judgment.Source.RATER)),
            n_import=Count("id", filter=in_export & Q(source=Judgment.Source.IMPORT)),
            first=Min("submitted_at", filter=in_export),
            last=Max("submitted_at", filter=in_export),
        )
    )  # fmt: skip
    exclusions = Exclusions(
        n_excluded_raters=len(scope.excluded),
        excluded_rater_judgments=totals["n_excluded"],
        gold_item_judgments=totals["n_gold"],
        superseded_revisions=Judgment.objects.filter(
            project=project, is_current=False, id__lte=scope.max_judgment_id
        ).count(),
    )
    sources = {name: totals[f"n_{name}"] for name in ("rater", "import") if totals[f"n_{name}"]}
    n_durations = totals["n_durations"]
    median_duration = _median_duration(judgments.filter(duration_ms__isnull=False)) if n_durations else None
    per_rater = sizes.judgments_per_rater
    return CardCounts(
        n_items=sizes.n_items,
        n_gold_items=sizes.n_gold_items,
        n_outputs=sum(systems.values()),
        systems=systems,
        outputs_per_item=dict(sorted(outputs_per_item.items())),
        subgroups=tuple(
            SubgroupCounts(subgroup=name, n_items=n, n_judgments=subgroup_judgments.get(name, 0))
            for name, n in sizes.items_by_subgroup.items()
        ),
        n_judgments=sum(per_rater),
        n_included_judgments=totals["n_included"],
        judgment_sources=sources,
        n_raters=len(per_rater),
        judgments_per_rater=_quantiles(per_rater),
        raters_per_item=dict(sorted(raters_per_item.items())),
        n_with_shown_order=totals["n_ordered"],
        n_first_output_shown_first=totals["n_first_shown"],
        median_duration_ms=median_duration,
        n_with_duration=n_durations,
        exclusions=exclusions,
        first_submitted=totals["first"].date().isoformat() if totals["first"] else None,
        last_submitted=totals["last"].date().isoformat() if totals["last"] else None,
    )


def system_summary(scope: ExportScope) -> dict[str, tuple[SystemMean | SystemTally, ...]]:
    """Per criterion with included judgments and system: n and mean (likert, rankme, raw values), or n, wins,
    ties, losses and win rate (pairwise, counting both sides of every pair)."""
    names = [c.name for c in criteria_for_card(scope.project)]
    if scope.outcomes:
        rows = (
            scope.included()
            .annotate(second=FilteredRelation("item__outputs", condition=Q(item__outputs__position=1)))
            .values("criterion__name", "output__system", "second__system")
            .annotate(
                n=Count("id"),
                wins=Count("id", filter=Q(value=2)),
                ties=Count("id", filter=Q(value=1)),
                losses=Count("id", filter=Q(value=0)),
            )
            .order_by()
            .values_list("criterion__name", "output__system", "second__system", "n", "wins", "ties", "losses")
        )
        tally: dict[tuple[str, str], list[int]] = {}
        for crit, first, second, n, wins, ties, losses in rows:
            for system, w, ll in ((first, wins, losses), (second, losses, wins)):
                t = tally.setdefault((crit, system), [0, 0, 0, 0])
                t[0] += n
                t[1] += w
                t[2] += ties
                t[3] += ll
        tallies: dict[str, list[SystemTally]] = {name: [] for name in names}
        for (crit, system), (n, wins, ties, losses) in tally.items():
            tallies.setdefault(crit, []).append(
                SystemTally(system=system, n=n, wins=wins, ties=ties, losses=losses, win_rate=(wins + ties / 2) / n)
            )
        for found in tallies.values():
            found.sort(key=lambda r: (-r.win_rate, r.system))
        return {name: tuple(found) for name, found in tallies.items() if found}
    means: dict[str, list[SystemMean]] = {name: [] for name in names}
    for crit, system, n, mean in (
        scope.included()
        .values("criterion__name", "output__system")
        .annotate(n=Count("id"), mean=Avg("value"))
        .order_by()
        .values_list("criterion__name", "output__system", "n", "mean")
    ):
        means.setdefault(crit, []).append(SystemMean(system=system, n=n, mean=mean))
    for rated in means.values():
        rated.sort(key=lambda r: (-r.mean, r.system))
    return {name: tuple(rated) for name, rated in means.items() if rated}


# --- Quality control ---------------------------------------------------------------------------------


def qc_for_card(project: Project) -> QcFacts:
    """Every version of the project's quality-control rules with the actions each took (counts by kind),
    the leads' own actions on raters, and how often each lead action of the audit log was taken: no rater
    or lead is named.

    The actions on raters are counted from the rater-action log, QC's own history, which also covers
    projects older than the audit log. Exports are left out of the audit counts: they do not shape the
    data, and an export started as a job is logged before its card is written, one by the command after.
    """
    from annotation.models import QcRules, RaterAction
    from audit.selectors import audit_action_counts_for_project

    counts = Counter(RaterAction.objects.filter(project=project).values_list("rules__version", "kind").order_by())
    taken = sorted(counts.items(), key=lambda entry: (entry[0][0] or 0, entry[0][1]))
    versions = tuple(
        QcRuleVersion(
            version=r.version,
            gold_accuracy_threshold=r.gold_accuracy_threshold,
            min_gold_answered=r.min_gold_answered,
            action=r.action,
            min_seconds_per_judgment=r.min_seconds_per_judgment,
            straight_line_run=r.straight_line_run,
            degraded_p_threshold=r.degraded_p_threshold,
            min_degraded_answered=r.min_degraded_answered,
            actions={kind: n for (version, kind), n in taken if version == r.version},
        )
        for r in QcRules.objects.filter(project=project).order_by("version")
    )
    return QcFacts(
        rules=versions,
        manual_actions={kind: n for (version, kind), n in taken if version is None},
        lead_actions=audit_action_counts_for_project(project, leave_out=("export",)),
    )


# --- Agreement, as the dashboard shows it --------------------------------------------------------------


# The fields of a stored snapshot the card states (``Estimate``'s).
CARD_SNAPSHOT_FIELDS = tuple(f.name for f in fields(Estimate))


def _estimate(s: SnapshotFigures) -> Estimate:
    return Estimate(
        statistic=s["statistic"],
        value=s["value"],
        ci_low=s["ci_low"],
        ci_high=s["ci_high"],
        n_units=s["n_units"],
        n_raters=s["n_raters"],
        status=s["status"],
        reason=s["reason"],
        unreliable=s["unreliable"],
    )


def _trend_point(p: dict[str, Any]) -> TrendPoint:
    return TrendPoint(
        week=p["week"],
        value=p["value"],
        ci_low=p["ci_low"],
        ci_high=p["ci_high"],
        n_units=p["n_units"],
        status=p["status"],
        unreliable=p["unreliable"],
    )


def _limitations(
    labels: dict[str, dict[str, Estimate]],
    subgroups: dict[str, dict[str, Estimate]],
    main_statistic: str | None,
) -> tuple[Limitation, ...]:
    """The main coefficients (per label, then per subgroup and label) that are unreliable or have no value."""
    weak = (
        [("criterion", name, "", stats.get(main_statistic)) for name, stats in labels.items()] if main_statistic else []
    )
    weak += [("subgroup", name, subgroup, s) for subgroup, cells in subgroups.items() for name, s in cells.items()]
    return tuple(
        Limitation(scope=scope, criterion=name, subgroup=subgroup, **asdict(s))
        for scope, name, subgroup, s in weak
        if s is not None and (s.unreliable or s.status != "ok")
    )


def agreement_for_card(project: Project, *, rater_names: dict[int, str]) -> AgreementFacts:
    """The agreement figures of the dashboard (``agreement.selectors.dashboard``), read from the stored
    snapshots: per criterion every statistic of the latest week (cumulative), per subgroup the main
    coefficient, the weekly trend of the main coefficient, rater pairs under the export's rater names,
    and the scopes too small to trust."""
    from agreement.models import MIN_RELIABLE_UNITS, AgreementSnapshot
    from agreement.selectors.dashboard import dashboard_for_project
    from agreement.selectors.labels import SNAPSHOT_LABEL, labels_of
    from agreement.templatetags.agreement_format import LABELS

    board = dashboard_for_project(project)
    if board.week is None:
        return AgreementFacts(
            week=None,
            main_statistic=None,
            main_statistic_label=None,
            label_columns=(),
            labels={},
            subgroups={},
            trend={},
            pairs={},
            limitations=(),
            off_scale={},
            statistic_labels=dict(LABELS),
            min_reliable_units=MIN_RELIABLE_UNITS,
        )
    criteria = labels_of(project, [c.name for c in criteria_for_card(project)])
    labels = {
        name: {statistic: _estimate(s) for statistic, s in board.labels[name].items()}
        for name in criteria
        if name in board.labels
    }
    subgroups = {
        subgroup: {name: _estimate(cells[name]) for name in criteria if name in cells}
        for subgroup, cells in sorted(board.subgroups.items())
    }
    trend = {
        name: {window: tuple(map(_trend_point, points)) for window, points in series.items()}
        for name, series in board.trends.items()
    }
    pair_rows = (
        AgreementSnapshot.objects.filter(
            project=project,
            week_start=board.week,
            window=AgreementSnapshot.Window.CUMULATIVE,
            scope=AgreementSnapshot.Scope.PAIR,
        )
        .annotate(label=SNAPSHOT_LABEL)
        .order_by("criterion__position", "rating_unit", "statistic")
        .values("label", "rater_a_id", "rater_b_id", *CARD_SNAPSHOT_FIELDS)
    )
    pairs: dict[str, list[RaterPairEstimate]] = {}
    pair_statistics: dict[str, str] = {}
    heatmaps = board.pair_heatmaps
    for s in pair_rows:
        heatmap = heatmaps.get(s["label"])
        if heatmap is None or s["statistic"] != heatmap["statistic"]:
            continue  # the pair statistic of the dashboard's heatmap (not, e.g., the span statistics)
        pair_statistics.setdefault(s["label"], s["statistic"])
        a, b = sorted([rater_names.get(s["rater_a_id"], "rater-?"), rater_names.get(s["rater_b_id"], "rater-?")])
        pairs.setdefault(s["label"], []).append(
            RaterPairEstimate(rater_a=a, rater_b=b, **{k: s[k] for k in CARD_SNAPSHOT_FIELDS})
        )
    main = board.main_statistic
    return AgreementFacts(
        week=board.week.isoformat(),
        main_statistic=main,
        main_statistic_label=None if main is None else LABELS.get(main, main),
        label_columns=tuple(c for c in board.label_columns if c),
        labels=labels,
        subgroups=subgroups,
        trend=trend,
        pairs={
            label: RaterPairs(
                statistic=pair_statistics[label], pairs=tuple(sorted(found, key=lambda p: (p.rater_a, p.rater_b)))
            )
            for label, found in pairs.items()
        },
        limitations=_limitations(labels, subgroups, main),
        off_scale={
            criterion: OffScaleValues(n=off.n, values=tuple(off.values)) for criterion, off in board.off_scale.items()
        },
        statistic_labels=dict(LABELS),
        min_reliable_units=MIN_RELIABLE_UNITS,
    )


def snapshots_computed_at(project: Project) -> str | None:
    """When the project's agreement snapshots were last computed (ISO, for the export's manifest); None without."""
    from agreement.models import AgreementSnapshot

    computed_at = AgreementSnapshot.objects.filter(project=project).aggregate(m=Max("computed_at"))["m"]
    return computed_at.isoformat() if computed_at else None
