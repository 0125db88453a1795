"""Items of a project, for leads."""

from collections.abc import Iterator

from django.db.models import QuerySet

from annotation.chat_layouts import Layout, item_to_chat_lines
from annotation.models import Item, Project


def item_list_for_project(
    project: Project, *, subgroup: str | None = None, gold: bool | None = None, search: str | None = None
) -> QuerySet[Item]:
    items = Item.objects.filter(project=project).prefetch_related("outputs").order_by("id")
    if subgroup is not None:
        items = items.filter(subgroup=subgroup)
    if gold is not None:
        items = items.filter(gold__isnull=not gold)
    if search:
        items = items.filter(external_id__icontains=search)
    return items


def item_text_fixed_reason(item: Item, *, n_judgments: int) -> str | None:
    """Why the item's text may no longer be replaced (and what to do instead), or None if it may."""
    if n_judgments:
        return (
            f"Item {item.external_id!r} has {n_judgments} judgment{'s' if n_judgments != 1 else ''}, so its text "
            f"can no longer change: retire it and import the new text under a new external id."
        )
    if item.degraded_from_id or item.repeat_of_id:
        return f"Item {item.external_id!r} is a quality-control copy; change the item it copies."
    if item.degraded_copies.exists():
        return (
            f"Item {item.external_id!r} has degraded copies made from its text, which would no longer match "
            f"it: retire it and import the new text under a new external id."
        )
    return None


def items_as_chat_lines(project: Project, layout: Layout, *, batch: int = 1000) -> Iterator[dict]:
    """The project's imported items (not gold, not quality-control copies) as lines of a chat dataset's layout
    (annotation.chat_layouts), in id order, a batch of items in memory at a time; items the layout cannot hold
    (a preference line needs the outputs "chosen" and "rejected", an Arena line two outputs) are left out."""
    items = Item.objects.filter(
        project=project, gold__isnull=True, degraded_from__isnull=True, repeat_of__isnull=True
    ).order_by("id")
    last = 0
    while chunk := list(items.filter(id__gt=last).prefetch_related("outputs")[:batch]):
        last = chunk[-1].pk
        for item in chunk:
            yield from item_to_chat_lines(
                {
                    "external_id": item.external_id,
                    "input": item.input,
                    "turns": item.turns,
                    "meta": item.meta,
                    "outputs": [{"system": o.system, "text": o.text, "turns": o.turns} for o in item.outputs.all()],
                },
                layout,
            )
