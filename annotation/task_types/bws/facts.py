"""What the best–worst type declares for agreement, results, export and the console."""

from ..facts import NOT_ADJUDICATED, POINTS, SCORED, AgreementPlan, Facts, Results, Setup, Values
from .card import CARD
from .demo import DEMO

VALUES = Values(
    POINTS,
    "int",
    "For the output named in `system`: 1 picked best in its tuple, -1 picked worst, 0 neither.",
    distribution_labels=("worst", "neither", "best"),
    disagreement=NOT_ADJUDICATED,
)
# Agreement on the pairwise preferences each answer implies (best over every other output of the tuple, every
# other output over worst): a unit is a pair of outputs of a tuple, coded for the first of the two.
AGREEMENT = AgreementPlan(
    "nominal",
    ("krippendorff_alpha_nominal", "percent_agreement", "fleiss_kappa"),
    ("krippendorff_alpha_nominal", "percent_agreement"),
    (None,),
    unit="implied pair",
    implied_pairs=True,
)
# The mean of the coded values is the counting score; MaxDiff and split-half reliability beside it.
RESULTS = Results(SCORED, best_worst=True)
SETUP = Setup(
    {
        "name": "Overall",
        "scale_min": None,
        "scale_max": None,
        "labels": [],
        "help_text": "Which output is the best, and which the worst?",
    },
    sample_outputs=3,
    hint="Best–worst scaling: raters pick the best and the worst output of each tuple per criterion; there is no "
    "scale. Import tuples, or the outputs to scale one per line (the platform draws 2N tuples of k = 4).",
    demo=DEMO,
    has_scale=False,
)

FACTS = Facts(VALUES, AGREEMENT, RESULTS, CARD, SETUP)
