"""Agreement statistics: pure numpy/scipy, no Django.

Reliability data are float arrays of shape (n_raters, n_units) with NaN for "not rated".
Import everything from here; submodules are implementation details.
"""

from .errors import InsufficientDataError
from .krippendorff import krippendorff_alpha, krippendorff_alpha_leave_one_out
from .results import AgreementResult, LeaveOneOutResult

__all__ = [
    "AgreementResult",
    "InsufficientDataError",
    "LeaveOneOutResult",
    "krippendorff_alpha",
    "krippendorff_alpha_leave_one_out",
]
