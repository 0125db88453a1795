"""How far a project has come."""

from dataclasses import dataclass

from django.db.models import Count

from annotation.models import Item, Judgment, Membership, Project

from .item_states import item_state_counts


@dataclass(frozen=True)
class ProjectProgress:
    """The project page's counts: items in all and in each state of ``ITEM_STATES``, current judgments and
    member raters."""

    n_items: int
    n_untouched: int
    n_in_progress: int
    n_complete: int
    n_gold: int
    #: Quality-control copies (repeats and degraded copies).
    n_control: int
    n_judgments: int
    n_raters: int


def project_progress(project: Project) -> ProjectProgress:
    counts = item_state_counts(Item.objects.filter(project=project), n_items=Count("id"))
    return ProjectProgress(
        n_items=counts["n_items"],
        n_untouched=counts["untouched"],
        n_in_progress=counts["in_progress"],
        n_complete=counts["complete"],
        n_gold=counts["gold"],
        n_control=counts["control"],
        n_judgments=Judgment.objects.filter(project=project, is_current=True).count(),
        n_raters=Membership.objects.filter(project=project, role=Membership.Role.RATER).count(),
    )
