"""How far a project has come."""

from django.db.models import Count

from annotation.models import Item, Judgment, Membership, Project

from .item_states import ITEM_STATES, item_state_counts


def project_progress(project: Project) -> dict:
    """Items in all and per state (``n_<state>`` for each of ITEM_STATES), current judgments and raters."""
    counts = item_state_counts(Item.objects.filter(project=project), n_items=Count("id"))
    items = {"n_items": counts["n_items"], **{f"n_{state}": counts[state] for state in ITEM_STATES}}
    items["n_judgments"] = Judgment.objects.filter(project=project, is_current=True).count()
    items["n_raters"] = Membership.objects.filter(project=project, role=Membership.Role.RATER).count()
    return items
