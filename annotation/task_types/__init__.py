"""The task types, one module each; the registry is explicit."""
from . import likert, pairwise, rankme
from .base import CriterionScale, TaskType, TaskTypeError

REGISTRY: dict[str, TaskType] = {t.slug: t for t in (likert.TYPE, rankme.TYPE, pairwise.TYPE)}

__all__ = ["REGISTRY", "CriterionScale", "TaskType", "TaskTypeError"]
