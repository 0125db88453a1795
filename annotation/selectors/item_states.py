"""The state of an item as leads see it, defined once for the project page, the progress page and the item
browser. Every item is in exactly one state: gold items are served outside the targets, quality-control
copies (repeats and degraded copies) are the project's own checks, and each imported work item is untouched,
in progress (judged or leased by fewer raters than it wants) or complete."""

from django.db.models import Count, F, Q, QuerySet

from annotation.models import Item

_CONTROL = Q(repeat_of__isnull=False) | Q(degraded_from__isnull=False)
# The imported items raters are there for: neither gold nor quality-control copies.
WORK_ITEMS = Q(gold__isnull=True, repeat_of__isnull=True, degraded_from__isnull=True)

ITEM_STATES = {
    "untouched": WORK_ITEMS & Q(n_judged=0, n_leased=0),
    "in_progress": WORK_ITEMS & Q(n_judged__lt=F("n_target")) & (Q(n_judged__gt=0) | Q(n_leased__gt=0)),
    "complete": WORK_ITEMS & Q(n_judged__gte=F("n_target")),
    "gold": Q(gold__isnull=False),
    "control": Q(gold__isnull=True) & _CONTROL,
}
ITEM_STATE_LABELS = {
    "untouched": "Untouched",
    "in_progress": "In progress",
    "complete": "Complete",
    "gold": "Gold",
    "control": "Quality-control copy",
}


def item_state(item: Item) -> str:
    """The key of ``ITEM_STATES`` that holds ``item`` (its row as loaded, without a query)."""
    if item.gold is not None:
        return "gold"
    if item.repeat_of_id is not None or item.degraded_from_id is not None:
        return "control"
    if item.n_judged >= item.n_target:
        return "complete"
    return "in_progress" if item.n_judged or item.n_leased else "untouched"


def item_state_counts(items: QuerySet[Item], **aggregates) -> dict:
    """How many of ``items`` are in each state (keyed as ITEM_STATES), with ``aggregates`` of the same
    rows, in one query."""
    # Prefixed while aggregated: an aggregate may not share a name with a field it filters on (gold).
    counts = items.aggregate(
        **{f"n_{state}": Count("id", filter=condition) for state, condition in ITEM_STATES.items()}, **aggregates
    )
    counts.update({state: counts.pop(f"n_{state}") for state in ITEM_STATES})
    return counts
