"""What moves when a project's judgments change for a reader that caches what it computed from them."""

from dataclasses import dataclass

from django.db.models import Count, Max

from annotation.models import Judgment, Project, RaterExclusion


@dataclass(frozen=True)
class JudgmentMark:
    """How many judgment rows the project has, the last id, and the raters quality control excludes: a revision,
    an import, a deletion or an exclusion moves it."""

    n_judgments: int
    through: int
    excluded: tuple[int, ...]


def judgment_mark(project: Project) -> JudgmentMark:
    mark = Judgment.objects.filter(project=project).aggregate(n=Count("id"), last=Max("id"))
    excluded = RaterExclusion.objects.filter(project=project).order_by("rater_id").values_list("rater_id", flat=True)
    return JudgmentMark(mark["n"], mark["last"] or 0, tuple(excluded))
