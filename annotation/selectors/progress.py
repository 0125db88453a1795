"""How far a project has come."""
from django.db.models import Count, F, Q

from annotation.models import Item, Judgment, Membership, Project


def project_progress(project: Project) -> dict:
    items = Item.objects.filter(project=project).aggregate(
        n_items=Count("id"),
        n_gold=Count("id", filter=Q(gold__isnull=False)),
        n_complete=Count("id", filter=Q(gold__isnull=True, n_judged__gte=F("n_target"))),
        n_started=Count("id", filter=Q(gold__isnull=True, n_judged__gt=0, n_judged__lt=F("n_target"))),
    )
    items["n_judgments"] = Judgment.objects.filter(project=project, is_current=True).count()
    items["n_raters"] = Membership.objects.filter(project=project, role=Membership.Role.RATER).count()
    return items
