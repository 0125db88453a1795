"""Agreement statistics: pure numpy/scipy, no Django.

Reliability data are float arrays of shape (n_raters, n_units) with NaN for "not rated".
Import everything from here; submodules are implementation details.
"""

from ._leave_one_out import MAX_CATEGORIES as LEAVE_ONE_OUT_MAX_CATEGORIES
from .bootstrap import ALPHA_METHODS, bca_interval, bootstrap_alpha, bootstrap_alpha_from_counts, bootstrap_ci
from .coincidence import coincidence_matrix, confusion_matrix
from .correlation import rater_correlation
from .errors import InsufficientDataError
from .gwet import gwet_ac1, gwet_ac2, gwet_from_counts
from .icc import icc
from .interpretation import (
    KRIPPENDORFF_CAVEAT,
    LANDIS_KOCH_CAVEAT,
    krippendorff_guideline,
    landis_koch,
)
from .kappa import (
    brennan_prediger_kappa,
    cohen_kappa,
    cohen_kappa_from_table,
    fleiss_kappa,
    pairwise_cohen_kappa,
)
from .krippendorff import (
    alpha_from_coincidences,
    coincidences_from_counts,
    krippendorff_alpha,
    krippendorff_alpha_leave_one_out,
    leave_one_out_from_ratings,
)
from .normalisation import rater_zscores
from .pair_tables import (
    PairAlphas,
    PairKappas,
    cohen_kappa_all_pairs,
    cohen_kappa_from_pair_tables,
    interval_alpha_all_pairs,
    pairwise_contingency_tables,
)
from .percent import (
    percent_agreement,
    percent_agreement_from_counts,
    specific_agreement,
    specific_agreement_from_counts,
    unanimous_agreement,
)
from .prevalence import bias_index, pabak, prevalence_index
from .reliability_data import (
    as_float_values,
    category_counts,
    encode_labels,
    rating_slot_matrix,
    reliability_matrix,
    unit_category_counts,
)
from .results import (
    AgreementResult,
    BootstrapResult,
    CategoryCounts,
    FleissKappaResult,
    IccResult,
    Interpretation,
    LeaveOneOutResult,
    PairResult,
    ReliabilityData,
    SampleSizeResult,
    ValueMatrix,
)
from .spans import SpanAgreement, SpanSet, SpanStatistic, span_agreement, span_set
from .study_design import units_for_ci_width

__all__ = [
    "PairAlphas",
    "PairKappas",
    "interval_alpha_all_pairs",
    "cohen_kappa_all_pairs",
    "cohen_kappa_from_pair_tables",
    "pairwise_contingency_tables",
    # coefficients
    "percent_agreement",
    "percent_agreement_from_counts",
    "specific_agreement_from_counts",
    "unanimous_agreement",
    "specific_agreement",
    "cohen_kappa",
    "cohen_kappa_from_table",
    "pairwise_cohen_kappa",
    "fleiss_kappa",
    "brennan_prediger_kappa",
    "krippendorff_alpha",
    "krippendorff_alpha_leave_one_out",
    "leave_one_out_from_ratings",
    "LEAVE_ONE_OUT_MAX_CATEGORIES",
    "alpha_from_coincidences",
    "coincidences_from_counts",
    "gwet_ac1",
    "gwet_ac2",
    "gwet_from_counts",
    "icc",
    "rater_correlation",
    # error spans (ESA, MQM)
    "span_set",
    "span_agreement",
    "SpanSet",
    "SpanStatistic",
    "SpanAgreement",
    # the kappa paradox
    "prevalence_index",
    "bias_index",
    "pabak",
    # matrices
    "coincidence_matrix",
    "confusion_matrix",
    # intervals and study design
    "bootstrap_ci",
    "bca_interval",
    "ALPHA_METHODS",
    "bootstrap_alpha",
    "bootstrap_alpha_from_counts",
    "units_for_ci_width",
    # interpretation
    "landis_koch",
    "krippendorff_guideline",
    "LANDIS_KOCH_CAVEAT",
    "KRIPPENDORFF_CAVEAT",
    # data preparation
    "reliability_matrix",
    "rating_slot_matrix",
    "category_counts",
    "unit_category_counts",
    "encode_labels",
    "as_float_values",
    "rater_zscores",
    # results and errors
    "AgreementResult",
    "FleissKappaResult",
    "IccResult",
    "BootstrapResult",
    "LeaveOneOutResult",
    "PairResult",
    "SampleSizeResult",
    "ValueMatrix",
    "ReliabilityData",
    "CategoryCounts",
    "Interpretation",
    "InsufficientDataError",
]
