"""How the data card and the HEDS sheet word an ESA study."""

from ..card_wording import RANDOM_ORDER
from ..facts import Card, CriterionScale


def _scale(criterion: CriterionScale, modulus: float | None) -> str:
    return "error spans (minor or major) in the output, then a score 0–100 (continuous)"


def _heds_scale(criterion: CriterionScale, modulus: float | None) -> tuple[str, str]:
    return "continuous", "0–100, after marking each error span as minor or major"


def _settings(config: dict) -> str:
    return f"Severities: {', '.join(config['severities'])}; spans carry no category."


CARD = Card(
    name="ESA (Error Span Annotation)",
    description="Raters read the source (and the reference, when shown) beside the output, mark each error in the "
    "output as a span of minor or major severity, or say it has no error, then give the output a score from 0 to "
    "100 with those errors in view (Kocmi et al., WMT 2024). Spans are stored with offsets in Unicode code points "
    "of the output as imported; proposed spans (ESA-AI) record whether the rater accepted, edited or rejected them.",
    order_policy=RANDOM_ORDER,
    shown_first="judged output first",
    elicitation="direct quality estimation",
    instrument="text span selection and slider",
    assessment="absolute",
    scale=_scale,
    heds_scale=_heds_scale,
    aggregation="Per output: mean of the raters' scores; per system: mean over outputs, ranked with WMT's "
    "significance clusters on the platform's results page.",
    distribution_bins=(" (per tenth of the score range).", " (per tenth of the score range)."),
    outputs_shown="the output(s), each with its own error spans and score",
    settings=_settings,
)
