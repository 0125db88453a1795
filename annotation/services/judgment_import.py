"""Judgment import (DESIGN.md §5, "Judgment import line"): load a study run elsewhere, all lines
or none. Raters named in the file become pseudonymous project members that cannot log in.

Error-span types (ESA, MQM) take the answer object as the line's ``value`` (spans stored beside the judgment),
or (MQM: the layouts hold no ESA score) a finished study in WMT's TSV layouts (``error_span_study``), read into
the same lines."""

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotation.conversations import assistant_turns
from annotation.models import Criterion, ErrorSpan, Item, Judgment, Membership, Output, Project, ProposedSpan
from annotation.task_types import REGISTRY, CriterionScale, Proposal, ScreenTexts, Span, TaskTypeError
from annotation.task_types.facts import COMPARED
from audit.services import audit_record
from core.bulk_insert import fresh_ids, insert_rows, refresh_planner_statistics
from core.import_records import BadRecord, ImportRejected, ImportReport, records
from core.outside_text import OutsideValueError, read_datetime

from .adjudication import adjudication_cases_open
from .error_span_study import StudyLine, read_study

# 5,000 judgment rows are ~1 MB in flight.
BATCH_SIZE = 5000
JUDGMENT_FIELDS = (
    "item",
    "rater",
    "criterion",
    "system",
    "value",
    "submitted_at",
    "shown_order",
    "duration_ms",
    "turn",
)
# Taken besides where the task type compares systems in pairs: the probability the judged pair was drawn with.
PAIR_FIELDS = ("sampling_probability",)
MAX_RATER_NAME = 100
# What Judgment.duration_ms holds (a PostgreSQL integer): about 24.8 days.
MAX_DURATION_MS = 2**31 - 1
# Imported raters' accounts are named PSEUDONYM_PREFIX + "<project id>-<name>"; no sign-up may take such a name.
PSEUDONYM_PREFIX = "imported-"
# Formats of a judgment file: JSON lines, or a study's error rows in WMT's TSV layouts (error-span types).
FORMATS = ("jsonl", "tsv")
SPAN_FIELDS = ["judgment", "proposal", "side", "start", "end", "severity", "category", "origin"]
_SPAN_ERROR = re.compile(r"^value\.spans\[(\d+)\][.:]? ?")


@dataclass(frozen=True)
class ParsedJudgment:
    item_id: int
    output_id: int
    criterion_id: int
    rater: str
    value: float
    label: str
    submitted_at: object
    shown_order: list[str]
    duration_ms: int | None
    spans: tuple[Span, ...] = ()
    sampling_probability: float | None = None
    turn: int | None = None


class _ProjectIndex:
    """Items, outputs and criteria of one project, looked up by the names an import line uses."""

    def __init__(self, project: Project):
        self.task_type = REGISTRY[project.task_type]
        self.criteria = {
            c.name: (c.id, CriterionScale(c.name, c.scale_min, c.scale_max, project.rankme_modulus))
            for c in Criterion.objects.filter(project=project)
        }
        self.items: dict[str, tuple[int, list[str], dict[str, int]]] = {}
        # per output, the turns a line may name (a project rating per turn; the whole output None where asked)
        self.rated_turns: dict[int, tuple[int | None, ...]] = {}
        per_turn = project.rating_unit != Project.RatingUnit.CONVERSATION
        whole = (None,) if project.rating_unit == Project.RatingUnit.BOTH else ()
        rows = (
            Output.objects.filter(item__project=project)
            .order_by("item_id", "position")
            .values_list("item__external_id", "item_id", "system", "id", *(("turns",) if per_turn else ()))
        )
        for external_id, item_id, system, output_id, *turns in rows.iterator(chunk_size=10_000):
            entry = self.items.setdefault(external_id, (item_id, [], {}))
            entry[1].append(system)
            entry[2][system] = output_id
            if per_turn:
                self.rated_turns[output_id] = (*whole, *assistant_turns(turns[0]))
        self.config = project.task_config or {}
        self.fields = JUDGMENT_FIELDS + (PAIR_FIELDS if self.task_type.results.kind == COMPARED else ())
        self.texts: dict[int, ScreenTexts] = self._texts(project) if self.task_type.reads_texts else {}

    @staticmethod
    def _texts(project: Project) -> dict[int, ScreenTexts]:
        """Each item's input, output texts and proposed spans, which error spans are checked against."""
        proposals: dict[int, list[Proposal]] = {}
        for output_id, *fields in (
            ProposedSpan.objects.filter(output__item__project=project)
            .order_by("output_id", "side", "start", "end", "id")
            .values_list("output_id", "id", "side", "start", "end", "severity", "category")
            .iterator(chunk_size=10_000)
        ):
            proposals.setdefault(output_id, []).append(Proposal(*fields))
        inputs = dict(Item.objects.filter(project=project).values_list("id", "input").iterator(chunk_size=10_000))
        outputs: dict[int, tuple[dict, dict]] = {}
        for item_id, output_id, system, text in (
            Output.objects.filter(item__project=project)
            .values_list("item_id", "id", "system", "text")
            .iterator(chunk_size=10_000)
        ):
            texts, proposed = outputs.setdefault(item_id, ({}, {}))
            texts[system] = text
            proposed[system] = tuple(proposals.get(output_id, ()))
        return {
            item_id: ScreenTexts(inputs[item_id], texts, proposed) for item_id, (texts, proposed) in outputs.items()
        }

    def parse(self, record: dict) -> ParsedJudgment:
        unknown = sorted(set(record) - set(self.fields))
        if unknown:
            raise TaskTypeError(f"unknown field {', '.join(map(repr, unknown))}; fields are {', '.join(self.fields)}")
        for name in ("item", "rater", "criterion", "value"):
            if record.get(name) in (None, ""):
                raise TaskTypeError(f"{name} is missing")
        item_key = str(record["item"])
        if item_key not in self.items:
            raise TaskTypeError(f"item {item_key!r} is not in this project")
        rater = record["rater"]
        if not isinstance(rater, str | int) or isinstance(rater, bool) or len(str(rater)) > MAX_RATER_NAME:
            raise TaskTypeError(f"rater must be a name of at most {MAX_RATER_NAME} characters")
        criterion = self.criteria.get(record["criterion"])
        if criterion is None:
            raise TaskTypeError(
                f"criterion {record['criterion']!r} is not one of {', '.join(map(repr, self.criteria))}"
            )
        item_id, systems, output_ids = self.items[item_key]
        coded = self.task_type.code_answer(
            record["value"],
            criterion[1],
            systems,
            record.get("system"),
            config=self.config,
            texts=self.texts.get(item_id),
        )
        turn = self._turn(record.get("turn"), output_ids[coded.system])
        return ParsedJudgment(
            item_id,
            output_ids[coded.system],
            criterion[0],
            str(rater),
            coded.value,
            coded.label,
            _submitted_at(record.get("submitted_at")),
            _shown_order(record.get("shown_order"), systems),
            _duration(record.get("duration_ms")),
            coded.spans,
            _probability(record.get("sampling_probability")),
            turn,
        )

    def _turn(self, value, output_id: int) -> int | None:
        """The assistant turn a line judges (None: the whole output), checked against the output's turns."""
        if output_id not in self.rated_turns:
            if value not in (None, ""):
                raise TaskTypeError("turn: this project rates whole outputs; leave turn out")
            return None
        rated = self.rated_turns[output_id]
        turn = None if value in (None, "") else value
        if isinstance(turn, str) and turn.isascii() and turn.isdigit() and len(turn) <= 5:
            turn = int(turn)  # CSV cells are text
        if turn in rated and not isinstance(turn, bool):
            return turn
        asked = ", ".join(str(t) for t in rated if t is not None)
        if turn is None:
            raise TaskTypeError(f"turn is missing: this project rates each assistant turn (the output's are {asked})")
        raise TaskTypeError(
            f"turn {value!r} is not an assistant turn of the output judged; its assistant turns are {asked}"
        )


def _submitted_at(value):
    """An aware date-time; one without a UTC offset is read as UTC (core.outside_text.read_datetime)."""
    if value in (None, ""):
        return None
    try:
        return read_datetime(value, field="submitted_at")
    except OutsideValueError as exc:
        raise TaskTypeError(str(exc)) from exc


def _shown_order(value, systems: list[str]) -> list[str]:
    if value in (None, []):
        return []
    if not isinstance(value, list) or sorted(map(str, value)) != sorted(systems):
        raise TaskTypeError(f"shown_order must list this item's systems ({', '.join(systems)}) in display order")
    return value


def _duration(value) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_DURATION_MS:
        raise TaskTypeError(f"duration_ms must be a non-negative whole number, at most {MAX_DURATION_MS}")
    return value


def _probability(value) -> float | None:
    """The probability the study drew the judged pair with (adaptive allocation), in (0, 1]."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise TaskTypeError(f"sampling_probability must be a number in (0, 1], got {value!r}")
    return float(value)


class _Source:
    """The lines of a judgment file, readable twice (checked, then stored): JSON lines from the stream, or the
    lines a WMT error TSV gives, read once and kept (a span's problem is reported at the span's own row)."""

    def __init__(self, stream, fmt: str, layout: str | None, index: _ProjectIndex):
        if fmt not in FORMATS:
            raise ValueError(f"fmt must be one of {', '.join(FORMATS)}; got {fmt!r}")
        self.stream, self.study = stream, None
        if fmt == "tsv":
            problem = (
                ""
                if index.task_type.reads_texts
                else f"a TSV of errors is for error-span projects; a {index.task_type.label} project imports JSON lines"
            )
            if not problem and index.task_type.extra_fields:
                problem = (
                    f"a TSV of errors holds no {', '.join(index.task_type.extra_fields)}, which "
                    f"{index.task_type.label} answers need: import the study as JSON lines"
                )
            if not problem and len(index.criteria) != 1:
                problem = (
                    f"a TSV of errors names no criterion: the project needs exactly one, it has {len(index.criteria)}"
                )
            if problem:
                report = ImportReport()
                report.add(1, problem)
                raise ImportRejected(report)
            self.study = read_study(stream, criterion=next(iter(index.criteria)), layout=layout)

    def lines(self):
        if self.study is None:
            self.stream.seek(0)
            for line, record in records(self.stream, "jsonl"):
                yield StudyLine(line, record)
        else:
            yield from self.study


def _parsed(source: _Source, index: _ProjectIndex):
    for study_line in source.lines():
        line, record = study_line.line, study_line.record
        if isinstance(record, BadRecord):
            yield line, str(record)
            continue
        try:
            yield line, index.parse(record)
        except TaskTypeError as exc:
            yield _at_span(study_line, str(exc))


def _at_span(study_line: StudyLine, message: str) -> tuple[int, str]:
    """A TSV span's problem at the span's own row, named as its columns are."""
    match = _SPAN_ERROR.match(message)
    if match and int(match.group(1)) < len(study_line.span_lines):
        return study_line.span_lines[int(match.group(1))], message[match.end() :]
    return study_line.line, message


def _check(project: Project, source: _Source, index: _ProjectIndex) -> tuple[int, set[str]]:
    """(number of judgments, rater names) of a file without a bad line; raises ImportRejected."""
    report, first_line = ImportReport(), {}
    names_by_user = dict(
        Membership.objects.filter(project=project).exclude(external_name="").values_list("user_id", "external_name")
    )
    stored = {
        (output_id, criterion_id, names_by_user[rater_id], turn)
        for output_id, criterion_id, rater_id, turn in Judgment.objects.filter(
            project=project, is_current=True, rater_id__in=names_by_user
        )
        .values_list("output_id", "criterion_id", "rater_id", "turn")
        .iterator(chunk_size=10_000)
    }
    screens: dict[tuple, tuple[int, list[float]]] = {}
    for line, parsed in _parsed(source, index):
        if isinstance(parsed, str):
            report.add(line, parsed)
            continue
        if index.task_type.checks_screens:
            screens.setdefault((parsed.item_id, parsed.criterion_id, parsed.rater), (line, []))[1].append(parsed.value)
        key = (parsed.output_id, parsed.criterion_id, parsed.rater, parsed.turn)
        if key in first_line:
            report.add(
                line, f"rater {parsed.rater!r} judged this output on this criterion already (line {first_line[key]})"
            )
        elif key in stored:
            report.add(line, f"rater {parsed.rater!r} already has a stored judgment for this output and criterion")
        else:
            first_line[key] = line
    _check_screens(index, screens, report)
    if not first_line and not report.n_errors:
        report.add(1, "the file holds no judgments")
    if report.n_errors:
        raise ImportRejected(report)
    return len(first_line), {rater for _, _, rater, _ in first_line}


def _check_screens(index: _ProjectIndex, screens: dict[tuple, tuple[int, list[float]]], report: ImportReport) -> None:
    """For a type that checks a screen's answers together (best–worst): each rater's lines on an item and criterion
    cover every output, and the type takes them together; a problem is reported at the screen's first line."""
    n_outputs = {item_id: len(systems) for item_id, systems, _ in index.items.values()}
    for (item_id, _, rater), (line, values) in screens.items():
        if len(values) < n_outputs[item_id]:
            report.add(
                line,
                f"rater {rater!r} answers {len(values)} of this item's {n_outputs[item_id]} outputs on "
                "this criterion: give a line for every output",
            )
            continue
        try:
            index.task_type.check_screen(values)
        except TaskTypeError as exc:
            report.add(line, f"rater {rater!r} on this item and criterion: {exc}")


def _pseudonymous_raters(project: Project, names: set[str]) -> dict[str, int]:
    """User ids of the imported raters, creating inactive accounts with unusable passwords."""
    known = dict(
        Membership.objects.filter(project=project, external_name__in=names).values_list("external_name", "user_id")
    )
    User = get_user_model()
    new = sorted(names - set(known))
    wanted = {name: f"{PSEUDONYM_PREFIX}{project.id}-{name}"[:150] for name in new}
    taken = set(User.objects.filter(username__in=wanted.values()).values_list("username", flat=True))
    for name in new:
        username = wanted[name]
        if username in taken:
            # Held by an account from before sign-ups refused the prefix: a random tag makes the name free.
            username = f"{PSEUDONYM_PREFIX}{project.id}-{secrets.token_hex(4)}-{name}"[:150]
        user = User(username=username, is_active=False)
        user.set_unusable_password()
        user.save()
        Membership.objects.create(project=project, user=user, role=Membership.Role.RATER, external_name=name)
        known[name] = user.id
    return known


def _refresh_item_counts(item_ids: set[int]) -> None:
    raters = (
        Judgment.objects.filter(item_id=OuterRef("pk"), is_current=True)
        .order_by()
        .values("item_id")
        .annotate(n=Count("rater_id", distinct=True))
        .values("n")
    )
    ids = sorted(item_ids)
    for start in range(0, len(ids), BATCH_SIZE):
        Item.objects.filter(id__in=ids[start : start + BATCH_SIZE]).update(n_judged=Coalesce(Subquery(raters), 0))


def judgment_import(
    *,
    project: Project,
    stream,
    progress: Callable[[int, int], None] | None = None,
    by=None,
    file_name: str = "",
    fmt: str = "jsonl",
    layout: str | None = None,
) -> int:
    """Import every judgment line of a seekable binary ``stream`` or none; returns the count. ``fmt`` "jsonl"
    (judgment lines) or "tsv" (an error-span study in WMT's layouts: ``layout`` "marked" or "offsets", None to
    tell from the header). ``by`` (who imported) and ``file_name`` go to the audit log.

    Imported judgments count toward each item's raters-per-item target (``Item.n_judged``).
    """
    index = _ProjectIndex(project)
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()
        source = _Source(stream, fmt, layout, index)
        total, names = _check(project, source, index)
        raters = _pseudonymous_raters(project, names)
        now, batch, spans, done, touched = timezone.now(), [], [], 0, set()
        fields = [
            "project",
            "item",
            "output",
            "criterion",
            "rater",
            "value",
            "label",
            "shown_order",
            "source",
            "client_token",
            "submitted_at",
            "duration_ms",
            "is_current",
            "sampling_probability",
            "turn",
        ]
        with_spans = index.task_type.reads_texts
        if with_spans:
            fields.insert(0, "id")

        def flush():
            if with_spans:
                ids = fresh_ids(Judgment, len(batch))
                rows = [(pk, *row) for pk, row in zip(ids, batch, strict=True)]
                insert_rows(Judgment, fields, rows)
                insert_rows(
                    ErrorSpan,
                    SPAN_FIELDS,
                    [(ids[k], s.proposal, s.side, s.start, s.end, s.severity, s.category, s.origin) for k, s in spans],
                )
            else:
                insert_rows(Judgment, fields, batch)

        for _, p in _parsed(source, index):
            spans.extend((len(batch), s) for s in p.spans)
            batch.append(
                (
                    project.id,
                    p.item_id,
                    p.output_id,
                    p.criterion_id,
                    raters[p.rater],
                    p.value,
                    p.label,
                    p.shown_order,
                    Judgment.Source.IMPORT,
                    "",
                    p.submitted_at or now,
                    p.duration_ms,
                    True,
                    p.sampling_probability,
                    p.turn,
                )
            )
            touched.add(p.item_id)
            if len(batch) >= BATCH_SIZE:
                flush()
                done += len(batch)
                batch, spans = [], []
                if progress:
                    progress(done, total)
        flush()
        _refresh_item_counts(touched)
        refresh_planner_statistics(Judgment, *((ErrorSpan,) if with_spans else ()))
        adjudication_cases_open(project=project, item_ids=touched, now=now)
        audit_record(
            actor=by,
            action="judgments.import",
            project=project,
            target=file_name,
            detail={"imported": total, "raters": len(names)},
        )
        if progress:
            progress(total, total)
    return total
