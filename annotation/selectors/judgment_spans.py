"""The error spans of given judgments, as the task types read them (gold checks, answers shown back)."""

from annotation.models import ErrorSpan
from annotation.task_types import Span


def spans_by_judgment(judgment_ids) -> dict[int, tuple[Span, ...]]:
    """The error spans of the given judgments (rejected proposals included, with their origin), by judgment id."""
    out: dict[int, list[Span]] = {}
    for judgment_id, *fields in ErrorSpan.objects.filter(judgment_id__in=list(judgment_ids)).values_list(
        "judgment_id", "side", "start", "end", "severity", "category", "origin", "proposal_id"
    ):
        out.setdefault(judgment_id, []).append(Span(*fields))
    return {k: tuple(v) for k, v in out.items()}
