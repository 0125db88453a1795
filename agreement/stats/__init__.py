"""Agreement statistics: pure numpy/scipy, no Django.

Reliability data are float arrays of shape (n_raters, n_units) with NaN for "not rated". The common
coefficients and the data preparation they need are imported from here; everything else from the module
of its topic, one path each:

- ``agreement.stats.counts``: the same coefficients from per-unit category counts, contingency tables
  and coincidence matrices (what the agreement engine computes scopes of categorical data from);
- ``pair_tables`` (every rater pair at once), ``bootstrap`` and ``study_design`` (intervals, units
  needed), ``krippendorff`` (leave-one-rater-out), ``percent`` (specific and unanimous agreement),
  ``kappa`` (pairwise and Brennan–Prediger), ``prevalence`` (the kappa paradox), ``coincidence``,
  ``correlation``, ``normalisation``, ``reliability_data``, ``spans`` (error spans), ``interpretation``,
  ``results`` (the result dataclasses).
"""

from .errors import InsufficientDataError
from .gwet import gwet_ac1, gwet_ac2
from .icc import icc
from .kappa import cohen_kappa, fleiss_kappa
from .krippendorff import krippendorff_alpha
from .percent import percent_agreement
from .reliability_data import reliability_matrix, unit_category_counts

__all__ = [
    "InsufficientDataError",
    "cohen_kappa",
    "fleiss_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "icc",
    "krippendorff_alpha",
    "percent_agreement",
    "reliability_matrix",
    "unit_category_counts",
]
