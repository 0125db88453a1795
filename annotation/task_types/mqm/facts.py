"""What the MQM type declares for agreement, results, export and the console."""

from ..error_span_facts import agreement_plan, setup
from ..facts import ERROR_SPANS, SPANS, SPANS_APART, Facts, Results, Values
from .card import CARD
from .coding import SEVERITIES
from .demo import DEMO

VALUES = Values(
    SPANS,
    "float",
    "The MQM penalty: the sum of the weights of the output's error spans (table "
    "error_spans); 0 = no error, lower is better.",
    disagreement=SPANS_APART,
)
# Agreement on the segment penalties and on the spans themselves.
AGREEMENT = agreement_plan(SEVERITIES)
RESULTS = Results(ERROR_SPANS, higher_is_better=False)
SETUP = setup(
    "Errors",
    "Mark every error with its category and severity.",
    "MQM: one criterion, no scale; raters mark error spans with a category of the typology and a severity.",
    DEMO,
)

FACTS = Facts(VALUES, AGREEMENT, RESULTS, CARD, SETUP)
