"""Items of a project, for leads."""
from django.db.models import QuerySet

from annotation.models import Item, Project


def item_list_for_project(project: Project, *, subgroup: str | None = None, gold: bool | None = None,
                          search: str | None = None) -> QuerySet[Item]:
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
        return (f"Item {item.external_id!r} has {n_judgments} judgment{'s' if n_judgments != 1 else ''}, so its text "
                f"can no longer change: retire it and import the new text under a new external id.")
    if item.degraded_from_id or item.repeat_of_id:
        return f"Item {item.external_id!r} is a quality-control copy; change the item it copies."
    if item.degraded_copies.exists():
        return (f"Item {item.external_id!r} has degraded copies made from its text, which would no longer match "
                f"it: retire it and import the new text under a new external id.")
    return None
