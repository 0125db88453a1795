"""Item import (DESIGN.md §5, "Item import line"): stream a JSONL or CSV file, check every line,
then store all items with their outputs in bulk, or nothing."""

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from django.db import DataError, IntegrityError, transaction
from django.db.models import OuterRef, Subquery, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from annotation.chat_layouts import chat_line_to_item, layout_of
from annotation.conversations import ConversationError, assistant_turns, turns_json, turns_parse, turns_text
from annotation.models import Item, Output, Project, ProposedSpan
from annotation.selectors.item_states import WORK_ITEMS
from annotation.task_types import REGISTRY, CriterionScale, ScaledOutput, Span, TaskTypeError
from audit.services import audit_record
from core.bulk_insert import insert_rows, refresh_planner_statistics, reserve_ids, uses_copy
from core.import_records import BadRecord, ImportRejected, ImportReport, records
from core.outside_text import OutsideValueError, check_json

from .allocation import allocation_plan_refresh

logger = logging.getLogger(__name__)

# 2,000 items with two ~1 kB outputs each are ~6 MB of rows in flight: memory stays flat whatever the file size.
BATCH_SIZE = 2000
ITEM_FIELDS = (
    "external_id",
    "input",
    "turns",
    "references",
    "reference",
    "outputs",
    "subgroup",
    "meta",
    "gold",
    "training",
)
_CSV_BOOLEANS = {"": False, "false": False, "0": False, "true": True, "1": True}
MAX_EXTERNAL_ID = 255
MAX_SUBGROUP = 100
MAX_SYSTEM = 200


@dataclass(frozen=True)
class ParsedItem:
    external_id: str
    input: str
    references: list[str]
    subgroup: str
    meta: dict
    gold: dict | None
    outputs: list[tuple[str, str]]
    training: bool = False  # a gold item of the training pool (shown with feedback, never a gold check)
    # Per output (in order), a model's proposed error spans for raters to review; () when none are given.
    proposals: tuple[tuple[Span, ...], ...] = ()
    # A conversation input's turns as stored ([{role, text}]); None for plain text (``input`` is then the text).
    turns: list[dict] | None = None
    # Per output (in order), a whole-conversation output's turns, or None; () when no output is a conversation.
    output_turns: tuple[list[dict] | None, ...] = ()


class ItemRules:
    """What a line must satisfy in one project: its task type and criteria."""

    def __init__(self, project: Project):
        self.task_type = REGISTRY[project.task_type]
        self.criteria = {
            c.name: CriterionScale(c.name, c.scale_min, c.scale_max, project.rankme_modulus)
            for c in project.criteria.all()
        }
        self.modulus = project.rankme_modulus
        self.config = project.task_config
        self.rating_unit = project.rating_unit

    def parse(self, record: dict) -> ParsedItem:
        if layout := layout_of(record):
            try:
                record = chat_line_to_item(record, layout)
            except ConversationError as exc:
                raise TaskTypeError(str(exc)) from exc
        unknown = sorted(set(record) - set(ITEM_FIELDS))
        if unknown:
            raise TaskTypeError(f"unknown field {', '.join(map(repr, unknown))}; fields are {', '.join(ITEM_FIELDS)}")
        external_id = _required_text(record, "external_id", MAX_EXTERNAL_ID)
        text, turns = _input(record)
        outputs, output_turns = _outputs(record.get("outputs"))
        self.task_type.check_output_count(len(outputs))
        self._check_rated_turns(output_turns or (None,) * len(outputs))
        proposals = self._proposals(record["outputs"], text, outputs)
        systems = [system for system, _ in outputs]
        subgroup = record.get("subgroup") or ""
        if not isinstance(subgroup, str) or len(subgroup) > MAX_SUBGROUP:
            raise TaskTypeError(f"subgroup must be a string of at most {MAX_SUBGROUP} characters")
        meta = record.get("meta") or {}
        if not isinstance(meta, dict):
            raise TaskTypeError("meta must be a JSON object")
        gold = record.get("gold")
        if gold is not None:
            gold = self.task_type.normalise_gold(gold, self.criteria, systems)
            self.task_type.check_gold_texts(gold, text, dict(outputs))
            rated = output_turns if self.rating_unit != Project.RatingUnit.CONVERSATION else ()
            self.task_type.check_gold_turns(
                gold, {system: assistant_turns(rated[k] if rated else None) for k, system in enumerate(systems)}
            )
        training = record.get("training", False)
        if not isinstance(training, bool):
            raise TaskTypeError(f"training must be true or false, got {training!r}")
        if training and gold is None:
            raise TaskTypeError("training: a training item is a gold item shown with its answer; give its gold")
        references = _references(record)
        if self.modulus is not None and not any(r.strip() for r in references[:1]):
            raise TaskTypeError(
                f"reference is missing: this project scores outputs against the item's reference "
                f"(RankME modulus {self.modulus:g}), so every item needs a non-empty reference"
            )
        return ParsedItem(
            external_id, text, references, subgroup, meta, gold, outputs, training, proposals, turns, output_turns
        )

    def _check_rated_turns(self, output_turns: tuple[list[dict] | None, ...]) -> None:
        if self.rating_unit == Project.RatingUnit.CONVERSATION:
            return
        for k, turns in enumerate(output_turns, start=1):
            if not assistant_turns(turns):
                raise TaskTypeError(
                    f"outputs[{k}]: this project rates every assistant turn (rating_unit {self.rating_unit!r}), so "
                    "each output must be a conversation (turns [{role, text}]) with at least one assistant turn"
                )

    def _proposals(self, raw: list[dict], source: str, outputs: list[tuple[str, str]]) -> tuple:
        given = [(k, output["proposed_spans"]) for k, output in enumerate(raw, start=1) if "proposed_spans" in output]
        if not given:
            return ()
        out = [()] * len(outputs)
        for k, spans in given:
            out[k - 1] = self.task_type.normalise_proposals(
                spans, config=self.config, source=source, text=outputs[k - 1][1], what=f"outputs[{k}].proposed_spans"
            )
        return tuple(out)


def _required_text(record: dict, name: str, max_length: int | None) -> str:
    value = record.get(name)
    if value is None or value == "":
        raise TaskTypeError(f"{name} is missing")
    if isinstance(value, int) and not isinstance(value, bool) and name == "external_id":
        value = str(value)
    if not isinstance(value, str):
        raise TaskTypeError(f"{name} must be a string, got {type(value).__name__}")
    if max_length and len(value) > max_length:
        raise TaskTypeError(f"{name} is longer than {max_length} characters")
    return value


def _conversation(value, *, field: str) -> tuple[str, list[dict]]:
    """A conversation's plain-text rendering and its turns as stored."""
    if isinstance(value, list) and not all(isinstance(turn, dict) for turn in value):
        raise TaskTypeError(f"{field} must be a string, or a conversation: a list of {{role, text}} turns")
    try:
        turns = turns_parse(value, field=field)
    except ConversationError as exc:
        raise TaskTypeError(str(exc)) from exc
    return turns_text(turns), turns_json(turns)


def _input(record: dict) -> tuple[str, list[dict] | None]:
    """The input's text and, for a conversation, its turns. A conversation comes as ``input`` (a list of turns)
    or, as exports write it, as ``turns`` beside ``input`` holding their plain-text rendering."""
    given, turns = record.get("input"), record.get("turns")
    if turns is not None:
        text, stored = _conversation(turns, field="turns")
        if given not in (None, text):
            raise TaskTypeError(
                "input and turns disagree: with turns, input is their plain-text rendering (or leave input out)"
            )
        return text, stored
    if isinstance(given, list):
        return _conversation(given, field="input")
    return _required_text(record, "input", None), None


def _references(record: dict) -> list[str]:
    if "reference" in record and "references" in record:
        raise TaskTypeError("give either reference or references, not both")
    if "reference" in record:
        refs = [] if record["reference"] in (None, "") else [record["reference"]]
    else:
        refs = record.get("references") or []
    if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
        raise TaskTypeError("references must be a list of strings")
    return refs


def _outputs(value) -> tuple[list[tuple[str, str]], tuple[list[dict] | None, ...]]:
    """(system, text) per output, and per output its turns when some output is a whole conversation (else ())."""
    if value is None:
        raise TaskTypeError("outputs is missing")
    if not isinstance(value, list):
        raise TaskTypeError("outputs must be a list of {system, text} objects")
    outputs, turns, seen = [], [], set()
    for k, output in enumerate(value, start=1):
        if not isinstance(output, dict) or set(output) - {"system", "text", "turns", "proposed_spans"}:
            raise TaskTypeError(f"outputs[{k}] must be an object with system and text (and turns, proposed_spans) only")
        system, text = output.get("system"), output.get("text")
        if not isinstance(system, str) or not system.strip() or len(system) > MAX_SYSTEM:
            raise TaskTypeError(f"outputs[{k}].system must be a non-empty name of at most {MAX_SYSTEM} characters")
        conversation = output.get("turns")
        if conversation is None and isinstance(text, list):
            conversation, text = text, None
        if conversation is not None:
            flat, stored = _conversation(conversation, field=f"outputs[{k}].{'turns' if 'turns' in output else 'text'}")
            if text not in (None, flat):
                raise TaskTypeError(
                    f"outputs[{k}]: text and turns disagree: with turns, text is their plain-text "
                    f"rendering (or leave text out)"
                )
            text = flat
        elif text is None or isinstance(text, bool | int | float):
            # Published files hold the odd bare JSON scalar (PandaLM has a response `true`): keep its JSON text.
            text = "" if text is None else json.dumps(text)
        if not isinstance(text, str):
            raise TaskTypeError(f"outputs[{k}].text must be a string")
        if system in seen:
            raise TaskTypeError(f"outputs[{k}].system {system!r} appears twice in this item")
        seen.add(system)
        outputs.append((system, text))
        turns.append(stored if conversation is not None else None)
    return outputs, (tuple(turns) if any(t is not None for t in turns) else ())


def csv_row_to_record(row: dict) -> dict:
    """CSV columns (outputs as output_1..k with system_1..k; meta, gold, references and a conversation's turns
    as JSON; training as true / false) → a line."""
    record, outputs = {}, {}
    for column, cell in row.items():
        prefix, _, index = column.rpartition("_")
        if prefix in ("output", "system") and index.isdigit():
            outputs.setdefault(int(index), {})["text" if prefix == "output" else "system"] = cell
        elif column == "training":
            record[column] = _CSV_BOOLEANS.get(cell.strip().lower(), cell)
        elif column in ("meta", "gold", "references", "turns"):
            if cell.strip():
                try:
                    record[column] = check_json(json.loads(cell), field=column)
                except json.JSONDecodeError as exc:
                    raise TaskTypeError(f"column {column} holds bad JSON: {exc.msg}") from exc
                except RecursionError as exc:
                    raise TaskTypeError(f"column {column} holds bad JSON: nested too deeply") from exc
                except OutsideValueError as exc:
                    raise TaskTypeError(str(exc)) from exc
                except ValueError as exc:  # an integer of more digits than Python reads
                    raise TaskTypeError(f"column {column} holds bad JSON: a number has too many digits") from exc
        else:
            record[column] = cell
    if "references" in record and not isinstance(record["references"], list):
        raise TaskTypeError("column references must hold a JSON list of strings")
    for index, output in sorted(outputs.items()):
        if not output.get("text") and not output.get("system"):
            continue  # a shorter row leaves the trailing output columns empty
        if "text" not in output or "system" not in output:
            raise TaskTypeError(f"output_{index} and system_{index} go together; one of them is missing")
        record.setdefault("outputs", []).append(output)
    return record


def _parsed(stream, fmt: str, rules: ItemRules) -> Iterator[tuple[int, ParsedItem | str]]:
    for line, record in records(stream, fmt):
        if isinstance(record, BadRecord):
            yield line, str(record)
            continue
        try:
            yield line, rules.parse(csv_row_to_record(record) if fmt == "csv" else record)
        except TaskTypeError as exc:
            yield line, str(exc)


def _check(project: Project, stream, fmt: str, rules: ItemRules) -> int:
    report, first_line = ImportReport(), {}
    pending: list[tuple[int, str]] = []

    def check_against_database():
        existing = set(
            Item.objects.filter(project=project, external_id__in=[e for _, e in pending]).values_list(
                "external_id", flat=True
            )
        )
        for line, external_id in pending:
            if external_id in existing:
                report.add(line, f"duplicate external_id {external_id!r}: the project already has this item")
        pending.clear()

    for line, parsed in _parsed(stream, fmt, rules):
        if isinstance(parsed, str):
            report.add(line, parsed)
            continue
        if parsed.external_id in first_line:
            report.add(
                line, f"duplicate external_id {parsed.external_id!r} (first on line {first_line[parsed.external_id]})"
            )
            continue
        first_line[parsed.external_id] = line
        pending.append((line, parsed.external_id))
        if len(pending) >= BATCH_SIZE:
            check_against_database()
    check_against_database()
    if not first_line and not report.n_errors:
        report.add(1, "the file holds no items")
    if report.n_errors:
        raise ImportRejected(report)
    return len(first_line)


class _TargetPlanner:
    """Which items get ``raters_per_item`` raters: an exact share spread evenly along import order
    (the k-th non-gold item is double-annotated when ⌊(k+1)·s⌋ > ⌊k·s⌋), so every stretch of the
    file, and hence every subgroup, gets its share."""

    def __init__(self, project: Project, k: int | None = None):
        self.share = Fraction(project.double_annotation_share).limit_denominator(10_000)
        self.raters = project.raters_per_item
        self.k = Item.objects.filter(project=project, gold__isnull=True).count() if k is None else k

    def doubled(self) -> bool:
        """Whether the next non-gold item is double-annotated (and counts it)."""
        doubled = int((self.k + 1) * self.share) > int(self.k * self.share)
        self.k += 1
        return doubled

    def target(self, item: ParsedItem) -> int:
        if item.gold is not None:
            return 0  # gold items are served to every rater at the gold rate, outside the targets
        return self.raters if self.doubled() else 1


def _write(project: Project, batch: list[ParsedItem], planner: _TargetPlanner) -> None:
    now = timezone.now()
    item_fields = [
        "project",
        "external_id",
        "input",
        "turns",
        "references",
        "subgroup",
        "meta",
        "gold",
        "training",
        "n_target",
        "n_judged",
        "created_at",
    ]
    item_rows = [
        (
            project.id,
            p.external_id,
            p.input,
            p.turns,
            p.references,
            p.subgroup,
            p.meta,
            p.gold,
            p.training,
            planner.target(p),
            0,
            now,
        )
        for p in batch
    ]
    if uses_copy():
        ids = reserve_ids(Item, len(batch))
        insert_rows(Item, ["id", *item_fields], [(i, *row) for i, row in zip(ids, item_rows, strict=True)])
    else:
        insert_rows(Item, item_fields, item_rows)
        ids = dict(
            Item.objects.filter(project=project, external_id__in=[p.external_id for p in batch]).values_list(
                "external_id", "id"
            )
        )
        ids = [ids[p.external_id] for p in batch]
    insert_rows(
        Output,
        ["item", "position", "system", "text", "turns"],
        [
            (item_id, position, system, text, p.output_turns[position] if p.output_turns else None)
            for item_id, p in zip(ids, batch, strict=True)
            for position, (system, text) in enumerate(p.outputs)
        ],
    )
    proposed = [(item_id, p.proposals) for item_id, p in zip(ids, batch, strict=True) if p.proposals]
    if proposed:
        output_ids = {
            (item_id, position): pk
            for pk, item_id, position in Output.objects.filter(
                item_id__in=[item_id for item_id, _ in proposed]
            ).values_list("id", "item_id", "position")
        }
        insert_rows(
            ProposedSpan,
            ["output", "side", "start", "end", "severity", "category"],
            [
                (output_ids[item_id, position], s.side, s.start, s.end, s.severity, s.category)
                for item_id, per_output in proposed
                for position, spans in enumerate(per_output)
                for s in spans
            ],
        )


def _drawn_screens(
    project: Project, rules: ItemRules, lines: list[tuple[int, ParsedItem]]
) -> list[tuple[int, ParsedItem]]:
    """The lines as they are when they are screens; when every line holds one output, the screens the task
    type draws from those outputs (best–worst tuples). Raises ImportRejected for a file that mixes the two."""
    single = [(line, p) for line, p in lines if len(p.outputs) == 1]
    if not single:
        return lines
    report = ImportReport()
    if len(single) < len(lines):
        line = single[0][0]
        report.add(
            line,
            "this line holds one output, to scale, but others hold the outputs of a screen: import "
            "either the outputs to scale, one per line (the platform draws the screens), or screens",
        )
        raise ImportRejected(report)
    for line, p in single:
        if p.gold is not None or p.references:
            report.add(
                line,
                "an output to scale takes no gold or references: they belong to screens; import screens to give them",
            )
    if report.n_errors:
        raise ImportRejected(report)
    outputs = [
        ScaledOutput(
            line,
            p.external_id,
            p.input,
            p.outputs[0][0],
            p.outputs[0][1],
            p.subgroup,
            input_turns=p.turns,
            output_turns=p.output_turns[0] if p.output_turns else None,
        )
        for line, p in single
    ]
    first = Item.objects.filter(project=project).count() + 1
    try:
        records = rules.task_type.screens_from_outputs(outputs, rules.config, first=first)
        drawn = [(single[0][0], rules.parse(record)) for record in records]
    except TaskTypeError as exc:
        report.add(0, str(exc))
        raise ImportRejected(report) from exc
    taken = set(
        Item.objects.filter(project=project, external_id__in=[p.external_id for _, p in drawn]).values_list(
            "external_id", flat=True
        )
    )
    if taken:
        report.add(0, f"the project has items named as the drawn screens already ({', '.join(sorted(taken)[:3])})")
        raise ImportRejected(report)
    return drawn


def item_import(
    *,
    project: Project,
    stream,
    fmt: str = "jsonl",
    progress: Callable[[int, int], None] | None = None,
    by=None,
    file_name: str = "",
) -> int:
    """Import every item of a seekable binary ``stream`` or none; returns the number imported. ``by`` (who
    imported) and ``file_name`` go to the audit log.

    Raises ImportRejected listing every bad line. Holds a lock on the project row while it runs, so
    concurrent imports into one project queue instead of racing on external ids.
    """
    rules = ItemRules(project)
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()
        total = _check(project, stream, fmt, rules)
        stream.seek(0)
        planner, batch, done = _TargetPlanner(project), [], 0
        lines = _parsed(stream, fmt, rules)
        if rules.task_type.draws_screens:
            lines = _drawn_screens(project, rules, list(lines))
            total = len(lines)
        try:
            for _, parsed in lines:
                batch.append(parsed)
                if len(batch) >= BATCH_SIZE:
                    _write(project, batch, planner)
                    done += len(batch)
                    batch = []
                    if progress:
                        progress(done, total)
            _write(project, batch, planner)
        except (IntegrityError, DataError) as exc:
            # Lines are checked before writing; this is a last line of defence, and the database's own text
            # (COPY ..., column ...) names its tables, not the file's fields: it is logged, not shown.
            logger.warning("item import into project %s refused by the database: %s", project.pk, exc)
            report = ImportReport()
            report.add(0, f"the database refused the items ({exc.__class__.__name__}); nothing was imported")
            raise ImportRejected(report) from exc
        refresh_planner_statistics(Item, Output)
        allocation_plan_refresh(project=project)
        audit_record(
            actor=by,
            action="items.import",
            project=project,
            target=file_name,
            detail={"imported": total, "format": fmt},
        )
        if progress:
            progress(total, total)
    return total


def item_targets_replan(*, project: Project) -> int:
    """Sets the raters wanted for each of the project's ordinary items anew from its raters_per_item and
    double-annotated share, by the rule of the import (_TargetPlanner), in id order; degraded copies
    follow their originals. For a project no rater has started; returns the number of ordinary items."""
    ordinary = Item.objects.filter(WORK_ITEMS, project=project)
    ids = list(ordinary.order_by("id").values_list("id", flat=True))
    planner = _TargetPlanner(project, k=0)
    doubled = [pk for pk in ids if planner.doubled()]
    with transaction.atomic():
        ordinary.update(n_target=1)
        for start in range(0, len(doubled), BATCH_SIZE):
            Item.objects.filter(pk__in=doubled[start : start + BATCH_SIZE]).update(n_target=project.raters_per_item)
        original = Item.objects.filter(pk=OuterRef("degraded_from_id")).values("n_target")
        Item.objects.filter(project=project, degraded_from__isnull=False).update(
            n_target=Greatest(Subquery(original), Value(1))
        )
        allocation_plan_refresh(project=project)
    return len(ids)
