"""How the data card and the HEDS sheet word a Likert study."""

from ..card_wording import MEANS, RANDOM_ORDER
from ..facts import Card, CriterionScale


def _scale(criterion: CriterionScale, modulus: float | None) -> str:
    if criterion.scale_min is None:
        return "–"
    return f"{criterion.scale_min:g}–{criterion.scale_max:g} (integers)"


def _heds_scale(criterion: CriterionScale, modulus: float | None) -> tuple[int, str]:
    size = int(criterion.scale_max - criterion.scale_min + 1)
    values = f"{criterion.scale_min:g}–{criterion.scale_max:g}" + (
        f" ({', '.join(criterion.labels)})" if criterion.labels else ""
    )
    return size, values


CARD = Card(
    name="Likert rating",
    description="Raters read the input and one or more outputs and rate each output on each criterion, on the "
    "criterion's integer scale.",
    order_policy=RANDOM_ORDER,
    shown_first="judged output first",
    elicitation="direct quality estimation",
    instrument="multiple-choice options",
    assessment="absolute",
    scale=_scale,
    heds_scale=_heds_scale,
    aggregation=MEANS.format(""),
)
