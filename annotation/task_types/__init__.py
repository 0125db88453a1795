"""The task types, one package each; the registry is explicit (no discovery)."""
from . import likert, pairwise, rankme
from .base import CriterionScale, TaskType, TaskTypeError

REGISTRY: dict[str, TaskType] = {t.slug: t for t in (likert.TYPE, rankme.TYPE, pairwise.TYPE)}

__all__ = ["REGISTRY", "CriterionScale", "TaskType", "TaskTypeError"]
