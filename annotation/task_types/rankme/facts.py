"""What the RankME type declares for agreement, results, export and the console."""

from ..facts import CONTINUOUS, SCORED, AgreementPlan, Facts, Results, Setup, Values
from .card import CARD
from .demo import DEMO

VALUES = Values(CONTINUOUS, "float", "The rating, on the criterion's slider range.")
AGREEMENT = AgreementPlan(
    "interval",
    ("krippendorff_alpha_interval", "krippendorff_alpha_interval_rater_z", "icc_1_1"),
    ("krippendorff_alpha_interval",),
    None,
)
# Sliders are normalised per rater (z-scores). With a modulus the scores are unbounded magnitude estimates,
# whose z-scores a single 10,000 would swamp: they take logs centred on each rater's geometric mean
# instead (Bard et al. 1996).
RESULTS = Results(SCORED, default_normalisation="zscore", modulus_normalisation="log", mean_ranks=True)
SETUP = Setup(
    {
        "name": "Overall quality",
        "scale_min": 0,
        "scale_max": 100,
        "labels": ["Worst", "Best"],
        "help_text": "Place each output on the slider relative to the others.",
    },
    sample_outputs=3,
    hint="RankME: one slider per output and criterion (default 0–100); label its two ends or none.",
    demo=DEMO,
)

FACTS = Facts(VALUES, AGREEMENT, RESULTS, CARD, SETUP)
