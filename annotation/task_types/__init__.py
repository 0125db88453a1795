"""The task types, one package each; the registry is explicit (no discovery)."""

from . import bws, esa, likert, mqm, pairwise, rankme
from .base import Coded, CriterionScale, Proposal, ScaledOutput, ScreenTexts, Span, TaskType, TaskTypeError

REGISTRY: dict[str, TaskType] = {
    t.slug: t for t in (likert.TYPE, rankme.TYPE, pairwise.TYPE, esa.TYPE, mqm.TYPE, bws.TYPE)
}

__all__ = [
    "REGISTRY",
    "Coded",
    "CriterionScale",
    "Proposal",
    "ScaledOutput",
    "ScreenTexts",
    "Span",
    "TaskType",
    "TaskTypeError",
]
