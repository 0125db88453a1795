"""Reads of the lead's quality-control set-up: the control items there are, and the rules' version history."""

from dataclasses import dataclass

from django.db.models import Count, Q

from annotation.models import Item, Project, QcRules
from annotation.selectors.quality_text import rules_changes


@dataclass(frozen=True)
class ControlPools:
    work: int  # real items (neither gold nor a copy)
    training: int  # gold items of the training pool
    gold: int  # gold items of the checking pool
    degraded: int
    repeats: int


def control_pools(project: Project) -> ControlPools:
    """How many items of each kind the project has. One query."""
    counts = Item.objects.filter(project=project).aggregate(
        n_work=Count("id", filter=Q(gold__isnull=True, degraded_from__isnull=True, repeat_of__isnull=True)),
        n_training=Count("id", filter=Q(gold__isnull=False, training=True)),
        n_gold=Count("id", filter=Q(gold__isnull=False, training=False)),
        n_degraded=Count("id", filter=Q(degraded_from__isnull=False)),
        n_repeats=Count("id", filter=Q(repeat_of__isnull=False)),
    )
    return ControlPools(**{name.removeprefix("n_"): n for name, n in counts.items()})


@dataclass(frozen=True)
class RulesVersion:
    rules: QcRules
    changes: list[str]
    n_actions: int  # actions taken under this version


def qc_rules_history(project: Project) -> list[RulesVersion]:
    """Every version of the project's rules, newest first, each with what it changed. One query."""
    versions = list(
        QcRules.objects.filter(project=project)
        .select_related("created_by")
        .annotate(n_actions=Count("actions"))
        .order_by("version")
    )
    history = [
        RulesVersion(rules, rules_changes(versions[k - 1] if k else None, rules), rules.n_actions)
        for k, rules in enumerate(versions)
    ]
    return history[::-1]
