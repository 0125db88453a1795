"""The names agreement figures go under: the criterion's name, followed by " (per turn)" for figures over single
assistant turns, so a project rating both ways shows each criterion's two sets of figures side by side."""

from django.db.models import CharField, F, Value, When
from django.db.models.expressions import Case
from django.db.models.functions import Concat

from agreement.models import AgreementSnapshot
from annotation.models import Project

PER_TURN = " (per turn)"

# A snapshot row's label, for .values(): its criterion's name (None over all labels), per turn marked.
SNAPSHOT_LABEL = Case(
    When(
        rating_unit=AgreementSnapshot.RatingUnit.TURN,
        criterion__isnull=False,
        then=Concat(F("criterion__name"), Value(PER_TURN)),
    ),
    default=F("criterion__name"),
    output_field=CharField(),
)


def label_of(criterion_name: str, rating_unit: str) -> str:
    return criterion_name + PER_TURN if rating_unit == AgreementSnapshot.RatingUnit.TURN else criterion_name


def labels_of(project: Project, criterion_names: list[str]) -> list[str]:
    """The labels a project's figures may have, in the criteria's order: each criterion's whole-output label and,
    in a project rating per turn, its per-turn label after it."""
    if project.rating_unit == Project.RatingUnit.CONVERSATION:
        return list(criterion_names)
    return [label for name in criterion_names for label in (name, name + PER_TURN)]
