"""The coefficients from counts rather than from a reliability matrix: per-unit category counts
(n_units, K), contingency tables of two raters, coincidence matrices, and the ratings of each unit for
leave-one-rater-out. Each equals its reliability-data form (same module of ``agreement.stats``) on the
same data; the agreement engine uses them when a scope's data are counts."""

from ._leave_one_out import MAX_CATEGORIES as LEAVE_ONE_OUT_MAX_CATEGORIES
from .bootstrap import bootstrap_alpha_from_counts
from .gwet import gwet_from_counts
from .kappa import cohen_kappa_from_table
from .krippendorff import alpha_from_coincidences, coincidences_from_counts, leave_one_out_from_ratings
from .pair_tables import cohen_kappa_from_pair_tables
from .percent import percent_agreement_from_counts, specific_agreement_from_counts

__all__ = [
    "LEAVE_ONE_OUT_MAX_CATEGORIES",
    "alpha_from_coincidences",
    "bootstrap_alpha_from_counts",
    "cohen_kappa_from_pair_tables",
    "cohen_kappa_from_table",
    "coincidences_from_counts",
    "gwet_from_counts",
    "leave_one_out_from_ratings",
    "percent_agreement_from_counts",
    "specific_agreement_from_counts",
]
