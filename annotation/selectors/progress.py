"""How far a project has come."""
from django.db.models import Count

from annotation.models import Item, Judgment, Membership, Project

from .item_states import ITEM_STATES


def project_progress(project: Project) -> dict:
    """Items in all and per state (``n_<state>`` for each of ITEM_STATES), current judgments and raters."""
    items = Item.objects.filter(project=project).aggregate(
        n_items=Count("id"),
        **{f"n_{state}": Count("id", filter=condition) for state, condition in ITEM_STATES.items()})
    items["n_judgments"] = Judgment.objects.filter(project=project, is_current=True).count()
    items["n_raters"] = Membership.objects.filter(project=project, role=Membership.Role.RATER).count()
    return items
