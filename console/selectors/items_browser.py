"""The lead's item browser: items filtered by external id, subgroup, system and status, with counts per
status, and one item with everything raters said about it."""

import json
from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet
from django.shortcuts import get_object_or_404

from annotation.models import Item, ItemFlag, Judgment, Output, Project
from annotation.selectors.item_states import ITEM_STATE_LABELS, ITEM_STATES, item_state, item_state_counts
from annotation.selectors.items import item_text_fixed_reason
from annotation.selectors.judgments import rater_names_for_project
from annotation.task_types import REGISTRY

PAGE_SIZE = 50

# "Flagged" (a rater reported the item) and "Retired" (served no more) cut across the item states.
STATUS_FILTERS = {**ITEM_STATES, "flagged": Q(is_flagged=True), "retired": Q(retired_at__isnull=False)}
STATUS_LABELS = {**ITEM_STATE_LABELS, "flagged": "Flagged", "retired": "Retired"}


@dataclass(frozen=True)
class ItemFilters:
    search: str = ""
    subgroup: str = ""
    system: str = ""
    status: str = ""

    def __post_init__(self):
        if self.status and self.status not in STATUS_FILTERS:
            raise ValueError(f"unknown status {self.status!r}; use one of {', '.join(STATUS_FILTERS)}")


def _items(project: Project, filters: ItemFilters) -> QuerySet[Item]:
    items = Item.objects.filter(project=project).annotate(
        is_flagged=Exists(ItemFlag.objects.filter(item=OuterRef("pk")))
    )
    if filters.search:
        items = items.filter(external_id__icontains=filters.search)
    if filters.subgroup:
        items = items.filter(subgroup=filters.subgroup)
    if filters.system:
        items = items.filter(Exists(Output.objects.filter(item=OuterRef("pk"), system=filters.system)))
    return items


def item_browser_page(
    project: Project, filters: ItemFilters, *, page: int | str = 1, page_size: int = PAGE_SIZE
) -> dict:
    """The page of items matching ``filters`` (with their systems), the count per status among the items
    matching every filter but the status, and the subgroups and systems to filter by. Six queries."""
    items = _items(project, filters)
    counts = item_state_counts(
        items,
        total=Count("id"),
        flagged=Count("id", filter=STATUS_FILTERS["flagged"]),
        retired=Count("id", filter=STATUS_FILTERS["retired"]),
    )
    if filters.status:
        items = items.filter(STATUS_FILTERS[filters.status])
    items = items.only(
        "id",
        "external_id",
        "subgroup",
        "gold",
        "repeat_of_id",
        "degraded_from_id",
        "n_target",
        "n_judged",
        "n_leased",
        "retired_at",
    ).prefetch_related(Prefetch("outputs", queryset=Output.objects.only("id", "item_id", "position", "system")))
    page_obj: Page = Paginator(items.order_by("id"), page_size).get_page(page)
    for item in page_obj:
        item.status = item_state(item)
        item.status_label = STATUS_LABELS[item.status]
    return {
        "page": page_obj,
        "counts": counts,
        "subgroups": list(
            Item.objects.filter(project=project)
            .exclude(subgroup="")
            .order_by("subgroup")
            .values_list("subgroup", flat=True)
            .distinct()
        ),
        "systems": list(
            Output.objects.filter(item__project=project).order_by("system").values_list("system", flat=True).distinct()
        ),
    }


def item_detail_for_lead(project: Project, external_id: str) -> dict:
    """One item of ``project`` (Http404 otherwise) with its outputs and system names, gold answer, flags,
    every judgment row, current or revised, in submission order, and whether its text may be replaced (why
    not, else ""). Five queries, six for an item no rater has judged."""
    item = get_object_or_404(Item.objects.filter(project=project), external_id=external_id)
    item.status = item_state(item)
    item.status_label = STATUS_LABELS[item.status]
    judgments = list(
        Judgment.objects.filter(item=item)
        .select_related("criterion", "output", "rater")
        .order_by("rater_id", "submitted_at", "id")
    )
    names = rater_names_for_project(project)
    for judgment in judgments:
        judgment.rater_name = names.get(judgment.rater_id, judgment.rater.username)
    outputs = list(item.outputs.order_by("position"))
    why_fixed = item_text_fixed_reason(item, n_judgments=len(judgments))
    if not why_fixed and (item.turns is not None or any(o.turns is not None for o in outputs)):
        why_fixed = (
            f"Item {item.external_id!r} holds a conversation, whose turns this form cannot edit: re-upload "
            f'its line with "Update existing items" on the upload page.'
        )
    return {
        "item": item,
        "gold_rows": [] if item.gold is None else REGISTRY[project.task_type].gold_rows(item.gold),
        "meta_json": json.dumps(item.meta, indent=2, ensure_ascii=False) if item.meta else "",
        "outputs": outputs,
        "judgments": judgments,
        "why_text_fixed": why_fixed or "",
        "flags": list(ItemFlag.objects.filter(item=item).select_related("rater").order_by("created_at", "id")),
    }
