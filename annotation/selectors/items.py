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
