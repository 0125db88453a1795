"""How the data card and the HEDS sheet word a RankME study."""

from ..card_wording import MEANS, RANDOM_ORDER
from ..facts import Card, CriterionScale


def _scale(criterion: CriterionScale, modulus: float | None) -> str:
    if criterion.scale_min is None:
        return "–"
    if modulus is not None:
        return f"any positive number, relative to the reference's {modulus:g}"
    return f"{criterion.scale_min:g}–{criterion.scale_max:g} (continuous)"


def _heds_scale(criterion: CriterionScale, modulus: float | None) -> tuple[str, str]:
    if modulus is not None:
        return "continuous", f"any positive number, relative to the reference's fixed {modulus:g}"
    return "continuous", f"{criterion.scale_min:g}–{criterion.scale_max:g}"


CARD = Card(
    name="RankME (relative magnitude estimation)",
    description="Raters see two or more outputs of the same input side by side and place a slider per output and "
    "criterion; values are continuous on the criterion's range.",
    order_policy=RANDOM_ORDER,
    shown_first="judged output first",
    elicitation="relative quality estimation (including ranking)",
    instrument="slider",
    assessment="relative",
    scale=_scale,
    heds_scale=_heds_scale,
    aggregation=MEANS.format(", after per-rater z-score normalisation"),
    aggregation_with_modulus=MEANS.format(
        ", after per-rater log normalisation (log score minus the rater's mean log score)"
    ),
    distribution_bins=(" (per tenth of the slider range).", " (in doublings of the modulus)."),
)
