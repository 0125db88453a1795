"""What the ESA type declares for agreement, results, export and the console."""

from ..error_span_facts import agreement_plan, setup
from ..facts import ERROR_SPANS, SPANS, SPANS_APART, Facts, Results, Values
from .card import CARD
from .coding import SEVERITIES
from .demo import DEMO

VALUES = Values(
    SPANS,
    "float",
    "The 0–100 score given after marking the output's error spans (table error_spans).",
    disagreement=SPANS_APART,
)
AGREEMENT = agreement_plan(SEVERITIES)
RESULTS = Results(ERROR_SPANS)
SETUP = setup(
    "Quality",
    "Mark each error as minor or major, then score the output 0–100.",
    "ESA: one criterion; raters mark error spans (minor/major) and give a 0–100 score.",
    DEMO,
)

FACTS = Facts(VALUES, AGREEMENT, RESULTS, CARD, SETUP)
