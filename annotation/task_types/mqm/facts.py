"""What the MQM type declares for agreement, results, export and the console."""

from ..facts import ERROR_SPANS, SPANS, AgreementPlan, Facts, Results, Setup, SpanAgreement, Values
from .card import CARD
from .coding import SEVERITIES
from .demo import DEMO

VALUES = Values(
    SPANS,
    "float",
    "The MQM penalty: the sum of the weights of the output's error spans (table "
    "error_spans); 0 = no error, lower is better.",
)
# Agreement on the segment penalties (the main one: interval alpha) and on the spans themselves (spans=).
AGREEMENT = AgreementPlan(
    "interval",
    ("krippendorff_alpha_interval", "icc_1_1"),
    ("krippendorff_alpha_interval",),
    None,
    spans=SpanAgreement(tuple(SEVERITIES)),
)
RESULTS = Results(ERROR_SPANS, higher_is_better=False)
SETUP = Setup(
    {
        "name": "Errors",
        "scale_min": None,
        "scale_max": None,
        "labels": [],
        "help_text": "Mark every error with its category and severity.",
    },
    sample_outputs=1,
    hint="MQM: one criterion, no scale; raters mark error spans with a category of the typology and a severity.",
    demo=DEMO,
    has_scale=False,
)

FACTS = Facts(VALUES, AGREEMENT, RESULTS, CARD, SETUP)
