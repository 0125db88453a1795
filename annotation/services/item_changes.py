"""Changing items after import: retire one (no longer served; its judgments stay, marked), serve it again,
replace the text of one no rater has judged, and re-upload a file in "update existing items" mode, which
adds the new external ids, rewrites the unjudged items whose content changed and says what it did per line.

Each takes the project row exclusively first, then the item's active leases, then the item rows, in the
lock order of annotation.services.assignment. A rater holding a lease on an item that is retired or
rewritten loses it (their submission is answered "lease gone"), so nobody judges a text they did not see.
"""

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from annotation.models import Assignment, Item, Judgment, Output, Project
from annotation.selectors.items import item_text_fixed_reason
from annotation.task_types import TaskTypeError
from audit.services import audit_record
from core.import_records import ImportRejected, ImportReport

from .assignment import assignment_leases_release
from .item_import import BATCH_SIZE, ItemRules, ParsedItem, _parsed, _TargetPlanner, _write

CONTENT_FIELDS = ("input", "turns", "references", "subgroup", "meta", "gold")


class ItemChangeRefused(ValidationError):
    """The item cannot change so; the message says why and what to do instead."""


def _lock(project: Project, item: Item) -> Item:
    Project.objects.select_for_update().filter(pk=project.pk).first()
    return Item.objects.select_for_update().get(pk=item.pk, project=project)


def _release_leases(items: list[int]) -> int:
    leases = list(
        Assignment.objects.select_for_update()
        .filter(item_id__in=items, status=Assignment.Status.ACTIVE)
        .order_by("id")
        .values_list("id", "item_id")
    )
    assignment_leases_release(leases)
    return len(leases)


@transaction.atomic
def item_retire(*, project: Project, item: Item, by) -> Item:
    """Retires the item: it is served to no rater any more (its active leases are released) and its
    judgments are kept, marked as from a retired item. Raises ItemChangeRefused if it is retired already."""
    item = _lock(project, item)
    if item.is_retired:
        raise ItemChangeRefused({"item": f"Item {item.external_id!r} is retired already."})
    released = _release_leases([item.pk])
    item.retired_at = timezone.now()
    item.save(update_fields=["retired_at"])
    audit_record(
        actor=by, action="item.retire", project=project, target=item.external_id, detail={"leases_released": released}
    )
    return item


@transaction.atomic
def item_unretire(*, project: Project, item: Item, by) -> Item:
    """Serves a retired item again, as it was. Raises ItemChangeRefused if it is not retired."""
    item = _lock(project, item)
    if not item.is_retired:
        raise ItemChangeRefused({"item": f"Item {item.external_id!r} is not retired."})
    item.retired_at = None
    item.save(update_fields=["retired_at"])
    audit_record(actor=by, action="item.unretire", project=project, target=item.external_id)
    return item


def _stored_outputs(item: Item) -> tuple[list[tuple[str, str]], tuple[list[dict] | None, ...]]:
    """The item's outputs as the import parses them: (system, text) each, and their turns (() when none has)."""
    stored = list(item.outputs.order_by("position"))
    turns = tuple(o.turns for o in stored)
    return [(o.system, o.text) for o in stored], (turns if any(t is not None for t in turns) else ())


def _content(item: Item) -> ParsedItem:
    outputs, output_turns = _stored_outputs(item)
    return ParsedItem(
        item.external_id,
        item.input,
        item.references,
        item.subgroup,
        item.meta,
        item.gold,
        outputs,
        item.training,
        turns=item.turns,
        output_turns=output_turns,
    )


def _refusal(item: Item, n_judgments: int, parsed: ParsedItem) -> str | None:
    """Why ``item`` may not take the content ``parsed``, or None."""
    if why := item_text_fixed_reason(item, n_judgments=n_judgments):
        return why
    if (parsed.gold is None) != (item.gold is None) or parsed.training != item.training:
        return (
            f"Item {item.external_id!r} cannot become or stop being a gold or training item; "
            f"import it under a new external id."
        )
    return None


def _rewrite(item: Item, parsed: ParsedItem) -> list[str]:
    """Writes ``parsed`` over the (locked, unjudged) item; returns the fields changed."""
    changed = [name for name in CONTENT_FIELDS if getattr(item, name) != getattr(parsed, name)]
    for name in changed:
        setattr(item, name, getattr(parsed, name))
    if changed:
        item.save(update_fields=changed)
    if _stored_outputs(item) != (parsed.outputs, parsed.output_turns):
        changed.append("outputs")
        item.outputs.all().delete()
        Output.objects.bulk_create(
            Output(
                item=item,
                position=position,
                system=system,
                text=text,
                turns=parsed.output_turns[position] if parsed.output_turns else None,
            )
            for position, (system, text) in enumerate(parsed.outputs)
        )
    if changed:
        _release_leases([item.pk])
    return changed


@transaction.atomic
def item_text_replace(*, project: Project, item: Item, input: str, output_texts: list[str], by) -> list[str]:
    """Replaces the input and the output texts (by position, systems kept) of an item no rater has judged;
    returns the fields changed. Raises ItemChangeRefused (why, and what to do instead) for a judged item,
    ValidationError naming the field for text the item import would refuse."""
    item = _lock(project, item)
    outputs, output_turns = _stored_outputs(item)
    if item.turns is not None or output_turns:
        raise ItemChangeRefused(
            {
                "item": f"Item {item.external_id!r} holds a conversation, whose turns this text form cannot edit; "
                f're-upload its line with the item import\'s "update existing items" mode.'
            }
        )
    if len(output_texts) != len(outputs):
        raise ValidationError({"outputs": f"give the text of each of the item's {len(outputs)} outputs"})
    record = {
        "external_id": item.external_id,
        "input": input,
        "references": item.references,
        "outputs": [{"system": system, "text": text} for (system, _), text in zip(outputs, output_texts, strict=True)],
    }
    try:
        checked = ItemRules(project).parse(record)
    except TaskTypeError as exc:
        raise ValidationError({"input" if str(exc).startswith("input") else "outputs": str(exc)}) from exc
    parsed = replace(_content(item), input=checked.input, outputs=checked.outputs)
    why = _refusal(item, item.judgments.count(), parsed)
    if why:
        raise ItemChangeRefused({"item": why})
    changed = _rewrite(item, parsed)
    if changed:
        audit_record(
            actor=by, action="item.replace", project=project, target=item.external_id, detail={"changed": changed}
        )
    return changed


@dataclass(frozen=True)
class UpdateLine:
    line: int
    external_id: str
    outcome: str  # added, updated, unchanged or refused
    detail: str = ""  # the fields changed, or why the line was refused


@dataclass
class UpdateReport:
    lines: list[UpdateLine] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for line in self.lines if line.outcome == outcome)

    def as_dict(self) -> dict:
        counts = {outcome: self.count(outcome) for outcome in ("added", "updated", "unchanged", "refused")}
        return {
            **counts,
            "lines": [
                {"line": u.line, "external_id": u.external_id, "outcome": u.outcome, "detail": u.detail}
                for u in self.lines
            ],
        }


def _checked_lines(stream, fmt: str, rules: ItemRules) -> list[tuple[int, ParsedItem]]:
    """Every line of the file parsed, or ImportRejected listing the bad ones (an external id twice included)."""
    report, first_line, parsed_lines = ImportReport(), {}, []
    for line, parsed in _parsed(stream, fmt, rules):
        if isinstance(parsed, str):
            report.add(line, parsed)
        elif parsed.external_id in first_line:
            report.add(
                line, f"duplicate external_id {parsed.external_id!r} (first on line {first_line[parsed.external_id]})"
            )
        else:
            first_line[parsed.external_id] = line
            parsed_lines.append((line, parsed))
    if not first_line and not report.n_errors:
        report.add(1, "the file holds no items")
    if report.n_errors:
        raise ImportRejected(report)
    return parsed_lines


def _batches(lines: list, size: int) -> Iterator[list]:
    for start in range(0, len(lines), size):
        yield lines[start : start + size]


@transaction.atomic
def item_import_update(
    *,
    project: Project,
    stream,
    fmt: str = "jsonl",
    by=None,
    file_name: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> UpdateReport:
    """Re-uploads a file in "update existing items" mode: a line with a new external id adds the item; one
    naming an existing item leaves it as it is when its content is the same, rewrites it when it differs and
    no rater has judged it, and is refused (with the reason) otherwise. Returns what happened per line.

    A malformed line still refuses the whole file (ImportRejected, nothing written), as the import does.
    ``progress(lines done, lines in all)`` is called after each batch.
    """
    rules = ItemRules(project)
    Project.objects.select_for_update().filter(pk=project.pk).first()
    parsed_lines = _checked_lines(stream, fmt, rules)
    report, planner = UpdateReport(), _TargetPlanner(project)
    for batch in _batches(parsed_lines, BATCH_SIZE):
        existing = {
            item.external_id: item
            for item in Item.objects.select_for_update()
            .filter(project=project, external_id__in=[p.external_id for _, p in batch])
            .order_by("id")
        }
        n_judgments = dict(
            Judgment.objects.filter(item__in=existing.values())
            .values("item_id")
            .annotate(n=Count("id"))
            .values_list("item_id", "n")
            .order_by()
        )
        added = []
        for line, parsed in batch:
            item = existing.get(parsed.external_id)
            if item is None:
                added.append(parsed)
                report.lines.append(UpdateLine(line, parsed.external_id, "added"))
                continue
            if _content(item) == parsed:
                report.lines.append(UpdateLine(line, parsed.external_id, "unchanged"))
            elif why := _refusal(item, n_judgments.get(item.pk, 0), parsed):
                report.lines.append(UpdateLine(line, parsed.external_id, "refused", why))
            else:
                changed = _rewrite(item, parsed)
                report.lines.append(UpdateLine(line, parsed.external_id, "updated", ", ".join(changed)))
        if added:
            _write(project, added, planner)
        if progress:
            progress(len(report.lines), len(parsed_lines))
    summary = report.as_dict()
    audit_record(
        actor=by,
        action="items.update",
        project=project,
        target=file_name,
        detail={k: summary[k] for k in ("added", "updated", "unchanged", "refused")} | {"format": fmt},
    )
    return report
