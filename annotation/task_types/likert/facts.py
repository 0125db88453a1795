"""What the Likert type declares for agreement, results, export and the console."""

from ..facts import POINTS, SCORED, AgreementPlan, Facts, Results, Setup, Values
from .card import CARD
from .demo import DEMO

VALUES = Values(POINTS, "int", "The rating, on the criterion's integer scale.")
# weights on category positions for AC2, which for a Likert scale's integer categories are its values too;
# quadratic Cohen kappa per rater pair: near misses are partial agreement
AGREEMENT = AgreementPlan(
    "ordinal",
    (
        "krippendorff_alpha_ordinal",
        "krippendorff_alpha_nominal",
        "fleiss_kappa",
        "gwet_ac1",
        "gwet_ac2_quadratic",
        "percent_agreement",
    ),
    ("krippendorff_alpha_ordinal", "percent_agreement"),
    ("quadratic",),
)
RESULTS = Results(SCORED, score_distribution=True)
SETUP = Setup(
    {
        "name": "Overall quality",
        "scale_min": 1,
        "scale_max": 5,
        "labels": ["Very poor", "Poor", "Acceptable", "Good", "Very good"],
        "help_text": "How good is this output as an answer to the input?",
    },
    sample_outputs=1,
    hint="Likert: each output gets one whole-number point per criterion (e.g. 1–5); give a label per point or none.",
    demo=DEMO,
)

FACTS = Facts(VALUES, AGREEMENT, RESULTS, CARD, SETUP)
