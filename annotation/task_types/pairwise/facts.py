"""What the pairwise type declares for agreement, results, export and the console."""

from ..facts import CATEGORIES_DIFFER, COMPARED, OUTCOME, AgreementPlan, Facts, Results, Setup, Values
from .card import CARD
from .coding import LOSES, OUTCOME_NAMES, TIES, WINS
from .demo import DEMO

VALUES = Values(
    OUTCOME,
    "string",
    'Winner: a system name, or "tie".',
    outcomes=(LOSES, TIES, WINS),
    outcome_labels=tuple(OUTCOME_NAMES[x] for x in (LOSES, TIES, WINS)),
    distribution_labels=("first output loses", "tie", "first output wins"),
    export_columns=(
        ("system_b", "string", "The item's second output's system."),
        ("outcome", "int", "For `system`: 0 it loses, 1 tie, 2 it wins."),
        (
            "sampling_probability",
            "float",
            "The probability the judged pair was drawn with (adaptive allocation, "
            "or imported); empty otherwise. Results weight the judgment by its "
            "inverse.",
        ),
    ),
    disagreement=CATEGORIES_DIFFER,
)
# unweighted Cohen kappa per rater pair for the 3-way outcome, as published pairwise studies report it
AGREEMENT = AgreementPlan(
    "ordinal",
    ("krippendorff_alpha_ordinal", "krippendorff_alpha_nominal", "fleiss_kappa", "percent_agreement"),
    ("krippendorff_alpha_ordinal", "percent_agreement"),
    (None,),
    unit="item",
)
RESULTS = Results(COMPARED)
SETUP = Setup(
    {
        "name": "Overall",
        "scale_min": None,
        "scale_max": None,
        "labels": [],
        "help_text": "Which output answers the input better? Choose a tie only if they are equally good.",
    },
    sample_outputs=2,
    hint="Pairwise: raters choose A, a tie or B per criterion; there is no scale.",
    demo=DEMO,
    has_scale=False,
)

FACTS = Facts(VALUES, AGREEMENT, RESULTS, CARD, SETUP)
