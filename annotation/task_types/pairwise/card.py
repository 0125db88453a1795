"""How the data card and the HEDS sheet word a pairwise study."""

from ..facts import Card, CriterionScale


def _scale(criterion: CriterionScale, modulus: float | None) -> str:
    return (
        "on screen: A (left) better / tie / B (right) better; stored for the first output as imported: "
        "0 it loses, 1 tie, 2 it wins"
    )


def _heds_scale(criterion: CriterionScale, modulus: float | None) -> tuple[int, str]:
    return 3, "first output better, tie, second output better"


CARD = Card(
    name="pairwise comparison (A/B with ties)",
    description="Raters see two outputs of the same input and choose the better one on each criterion, or a tie. "
    "Judgments are stored for the item's first output as imported: 0 it loses, 1 tie, 2 it wins, "
    "whichever side the rater saw it on.",
    order_policy="each assignment draws which output is shown on the left, favouring for each rater the "
    "system that rater has seen on the left less often, so every system is left about half the time",
    shown_first="first output (as imported) on the left",
    elicitation="relative quality estimation (including ranking)",
    instrument="multiple-choice options",
    assessment="relative",
    scale=_scale,
    heds_scale=_heds_scale,
    aggregation="Per system: wins, ties and losses over every judgment (win rate = (wins + ties/2)/n); Bradley-Terry "
    "strengths with bootstrap intervals on the platform's results page.",
    outputs_shown="two outputs side by side",
)
