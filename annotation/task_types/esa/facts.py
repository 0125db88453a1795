"""What the ESA type declares for agreement, results, export and the console."""

from ..facts import ERROR_SPANS, SPANS, AgreementPlan, Facts, Results, Setup, SpanAgreement, Values
from .card import CARD
from .coding import SEVERITIES
from .demo import DEMO

VALUES = Values(SPANS, "float", "The 0–100 score given after marking the output's error spans (table error_spans).")
# Agreement on the scores (the main one: interval alpha) and on the spans themselves (spans=).
AGREEMENT = AgreementPlan(
    "interval",
    ("krippendorff_alpha_interval", "icc_1_1"),
    ("krippendorff_alpha_interval",),
    None,
    spans=SpanAgreement(tuple(SEVERITIES)),
)
RESULTS = Results(ERROR_SPANS)
SETUP = Setup(
    {
        "name": "Quality",
        "scale_min": None,
        "scale_max": None,
        "labels": [],
        "help_text": "Mark each error as minor or major, then score the output 0–100.",
    },
    sample_outputs=1,
    hint="ESA: one criterion; raters mark error spans (minor/major) and give a 0–100 score.",
    demo=DEMO,
    has_scale=False,
)

FACTS = Facts(VALUES, AGREEMENT, RESULTS, CARD, SETUP)
