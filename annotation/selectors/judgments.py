"""Judgments of a project, for leads."""

from django.db.models import Q, QuerySet

from annotation.models import Judgment, Membership, Project


def judgment_list_for_project(
    project: Project, *, include_revised: bool = False, rater: str | None = None, criterion: str | None = None
) -> QuerySet[Judgment]:
    judgments = (
        Judgment.objects.filter(project=project).select_related("item", "output", "criterion", "rater").order_by("id")
    )
    if not include_revised:
        judgments = judgments.filter(is_current=True)
    if rater:
        raters = Membership.objects.filter(project=project).filter(Q(user__username=rater) | Q(external_name=rater))
        judgments = judgments.filter(rater_id__in=raters.values("user_id"))
    if criterion:
        judgments = judgments.filter(criterion__name=criterion)
    return judgments


def rater_names_for_project(project: Project) -> dict[int, str]:
    """Display name per rater id: the imported study's rater id, else the username."""
    return {
        user_id: external_name or username
        for user_id, external_name, username in Membership.objects.filter(project=project).values_list(
            "user_id", "external_name", "user__username"
        )
    }


def rater_ids_named(project: Project, name: str) -> list[int]:
    """Ids of the project's raters called ``name`` (a username, or a rater id of an imported study)."""
    return list(
        Membership.objects.filter(project=project)
        .filter(Q(user__username=name) | Q(external_name=name))
        .values_list("user_id", flat=True)
    )
