"""Evaluation statistics: pure numpy/scipy, no Django.

Per-system scores with bootstrap intervals, per-rater normalisation, pairwise win rates and
Bradley–Terry strengths, significance tests with Holm's correction, metric–human correlations at
three levels, metric calibration, judge-versus-human agreement, the alternative annotator test,
prediction-powered estimates, study planning, MQM/ESA scores with WMT's ranking, rater models
(Dawid–Skene, MACE, Gaussian bias and noise), best–worst scaling (design, counting and MaxDiff scores,
split-half reliability, adaptive tuples with weighted MaxDiff), Bradley–Terry with style covariates, on
aggregated tables at scale, with adaptive allocation and inverse-probability weighting, and leaderboard
integrity. Import everything from here; submodules are implementation details.
"""

from .adaptive_pairs import (
    ALLOCATION_WEIGHTINGS,
    DEFAULT_FLOORS,
    WEIGHTINGS,
    IpwBradleyTerry,
    IpwWinRates,
    allocation_probabilities,
    ipw_bradley_terry,
    ipw_win_rates,
    system_pairs,
)
from .adaptive_tuples import IpwMaxDiff, ipw_maxdiff, tuple_allocation_probabilities
from .alt_test import AltTestResult, RaterComparison, alt_test, alt_test_single_expert, benjamini_yekutieli
from .best_worst import (
    BwsScores,
    ImpliedPairAgreement,
    MaxDiffResult,
    SplitHalfReliability,
    bws_scores,
    bws_tuples,
    implied_pair_agreement,
    maxdiff,
    split_half_reliability,
)
from .calibration import CalibrationReport, Calibrator, calibrate, fit_calibrator
from .clusters import significance_clusters
from .correlation import KENDALL_VARIANT, CorrelationResult, correlation, correlation_rows
from .error_spans import (
    MAROT_MQM_WEIGHTS,
    WMT_MQM_WEIGHTS,
    MqmScores,
    MqmWeights,
    RankedSystem,
    SystemRanking,
    mqm_row_weights,
    mqm_scores,
    rank_systems,
)
from .errors import InsufficientDataError
from .judges import Estimate, JudgeAgreement, consensus, judge_agreement, pairwise_agreement
from .leaderboard import AdjacentMargin, LeaderboardIntegrity, leaderboard_integrity
from .pair_tables import PairTables, bradley_terry_tables, pair_tables
from .pairwise import (
    BradleyTerryResult,
    PairCounts,
    WinRate,
    bradley_terry,
    majority_outcomes,
    pairwise_counts,
    win_rates,
)
from .post_stratification import PostStratifiedMean, post_stratified_means
from .prediction_powered import MeanEstimate, PredictionPoweredMean, prediction_powered_mean
from .quality_control import degraded_scores_test, position_bias_test, sign_test_greater
from .rater_models import (
    CategoricalRaterModel,
    GaussianRaterModel,
    dawid_skene,
    gaussian_rater_model,
    mace,
    vote_shares,
)
from .significance import PairedTestResult, SystemComparison, compare_systems, holm, paired_test
from .study_planning import (
    COMPARISONS,
    DesignPower,
    InterimAnswer,
    PowerCurve,
    VarianceComponents,
    design_power,
    effect_on_item_scale,
    interim_answer,
    items_for_half_width,
    items_for_power,
    power_curve,
    variance_components,
)
from .style_control import STYLE_FEATURES, StyleControlledResult, bradley_terry_style, style_features
from .system_scores import (
    INTERVAL_METHODS,
    SystemRank,
    SystemScore,
    mean_ranks,
    normalise_scores,
    score_distribution,
    system_scores,
)

__all__ = [
    "degraded_scores_test",
    "position_bias_test",
    "sign_test_greater",
    "AdjacentMargin",
    "LeaderboardIntegrity",
    "leaderboard_integrity",
    "STYLE_FEATURES",
    "StyleControlledResult",
    "bradley_terry_style",
    "style_features",
    "ALLOCATION_WEIGHTINGS",
    "DEFAULT_FLOORS",
    "WEIGHTINGS",
    "IpwBradleyTerry",
    "IpwWinRates",
    "allocation_probabilities",
    "ipw_bradley_terry",
    "ipw_win_rates",
    "system_pairs",
    "IpwMaxDiff",
    "ipw_maxdiff",
    "tuple_allocation_probabilities",
    "PairTables",
    "bradley_terry_tables",
    "pair_tables",
    "BwsScores",
    "ImpliedPairAgreement",
    "MaxDiffResult",
    "SplitHalfReliability",
    "bws_scores",
    "bws_tuples",
    "implied_pair_agreement",
    "maxdiff",
    "split_half_reliability",
    "PostStratifiedMean",
    "post_stratified_means",
    "CategoricalRaterModel",
    "GaussianRaterModel",
    "dawid_skene",
    "gaussian_rater_model",
    "mace",
    "vote_shares",
    "significance_clusters",
    "MAROT_MQM_WEIGHTS",
    "WMT_MQM_WEIGHTS",
    "MqmScores",
    "MqmWeights",
    "RankedSystem",
    "SystemRanking",
    "mqm_row_weights",
    "mqm_scores",
    "rank_systems",
    "AltTestResult",
    "RaterComparison",
    "alt_test",
    "alt_test_single_expert",
    "benjamini_yekutieli",
    "INTERVAL_METHODS",
    "COMPARISONS",
    "DesignPower",
    "InterimAnswer",
    "PowerCurve",
    "VarianceComponents",
    "design_power",
    "effect_on_item_scale",
    "interim_answer",
    "items_for_half_width",
    "items_for_power",
    "power_curve",
    "variance_components",
    "MeanEstimate",
    "PredictionPoweredMean",
    "prediction_powered_mean",
    "KENDALL_VARIANT",
    "BradleyTerryResult",
    "CalibrationReport",
    "Calibrator",
    "CorrelationResult",
    "Estimate",
    "InsufficientDataError",
    "JudgeAgreement",
    "PairCounts",
    "PairedTestResult",
    "SystemComparison",
    "SystemRank",
    "SystemScore",
    "WinRate",
    "bradley_terry",
    "calibrate",
    "compare_systems",
    "consensus",
    "correlation",
    "correlation_rows",
    "fit_calibrator",
    "holm",
    "judge_agreement",
    "majority_outcomes",
    "mean_ranks",
    "normalise_scores",
    "pairwise_agreement",
    "pairwise_counts",
    "paired_test",
    "score_distribution",
    "system_scores",
    "win_rates",
]
