"""Result types: frozen dataclasses that carry a coefficient with its sample sizes and precision."""

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, kw_only=True)
class AgreementResult:
    """A reliability coefficient with what a service must store beside it.

    ``float(result)`` is the coefficient. Fields that a statistic does not define are ``None``.

    Attributes
    ----------
    statistic : str
        Name of the statistic, e.g. ``"krippendorff_alpha"`` or ``"cohen_kappa"``.
    value : float
        The coefficient.
    n_units : int
        Units that entered the computation (for alpha: units rated at least twice).
    n_raters : int
        Raters who contributed at least one rating to those units.
    variant : str or None
        Level of measurement, weighting scheme or model (``"ordinal"``, ``"quadratic"``, ``"ICC(2,1)"``).
    n_pairable : int or None
        Pairable values (Krippendorff's :math:`n`), for alpha.
    observed_agreement, expected_agreement : float or None
        :math:`p_o` and :math:`p_e` of a kappa-type coefficient.
    observed_disagreement, expected_disagreement : float or None
        :math:`D_o` and :math:`D_e` of alpha.
    standard_error : float or None
        Large-sample (non-null) standard error, the one the confidence interval uses.
    confidence_interval : tuple of float or None
        ``(low, high)``; the upper limit is capped at 1, the largest value the coefficient can take.
    confidence_level : float or None
        E.g. 0.95.
    test_statistic, p_value : float or None
        Test of "no agreement beyond chance" (coefficient = 0); each function says which statistic.
    interval_reason : str or None
        Why ``standard_error`` and ``confidence_interval`` are ``None`` although the coefficient is
        defined (e.g. a constant rater, whose kappa has a zero large-sample variance).
    """

    statistic: str
    value: float
    n_units: int
    n_raters: int
    variant: str | None = None
    n_pairable: int | None = None
    observed_agreement: float | None = None
    expected_agreement: float | None = None
    observed_disagreement: float | None = None
    expected_disagreement: float | None = None
    standard_error: float | None = None
    confidence_interval: tuple[float, float] | None = None
    confidence_level: float | None = None
    test_statistic: float | None = None
    p_value: float | None = None
    interval_reason: str | None = None

    def __float__(self) -> float:
        return float(self.value)


@dataclass(frozen=True, kw_only=True)
class FleissKappaResult(AgreementResult):
    """Fleiss' kappa plus the kappa of each category against all others (Fleiss 1971).

    ``per_category`` maps each category label to its kappa, or to ``None`` when nobody used the
    category or everybody did (its kappa is then undefined); ``per_category_z`` holds the z of
    each under the null hypothesis, where defined.
    """

    per_category: dict = field(default_factory=dict)
    per_category_z: dict = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class IccResult(AgreementResult):
    """An intraclass correlation with its F test (``test_statistic``) and degrees of freedom."""

    df_numerator: float | None = None
    df_denominator: float | None = None


@dataclass(frozen=True, kw_only=True)
class BootstrapResult:
    """A bootstrap interval from resampling units; ``method`` says which: ``"bca"`` (bias-corrected
    and accelerated) or ``"percentile"``.

    Attributes
    ----------
    statistic : str
    value : float
        The statistic on the original data.
    standard_error : float
        Standard deviation of the replicates.
    confidence_interval : tuple of float
    confidence_level : float
    n_resamples : int
        Replicates requested.
    n_failed : int
        Replicates on which the statistic was undefined (e.g. a resample with a single
        category); they are left out of the interval and counted here.
    """

    statistic: str
    value: float
    standard_error: float
    confidence_interval: tuple[float, float]
    confidence_level: float
    n_resamples: int
    n_failed: int = 0
    method: str = "percentile"

    def __float__(self) -> float:
        return float(self.value)


@dataclass(frozen=True, kw_only=True)
class LeaveOneOutResult:
    """Alpha with every rater, and with each rater (row) left out in turn.

    ``value_without[r]`` is alpha without row ``r`` and ``change[r] = value_without[r] - value``
    (positive: agreement rises without that rater). Where leaving a rater out leaves too little
    data, both are ``None`` and ``reasons[r]`` says why.
    """

    statistic: str
    variant: str
    value: float
    value_without: tuple
    change: tuple
    reasons: tuple

    def __float__(self) -> float:
        return float(self.value)


@dataclass(frozen=True, kw_only=True, eq=False)
class ValueMatrix:
    """A square matrix indexed by values: ``matrix[i, j]`` is for ``values[i]`` and ``values[j]``.

    ``kind`` is ``"coincidence"`` (Krippendorff's o_ck, symmetric, all raters) or
    ``"confusion"`` (rows rater A, columns rater B).
    """

    kind: str
    values: np.ndarray
    matrix: np.ndarray


@dataclass(frozen=True, kw_only=True)
class PairResult:
    """One rater pair's coefficient, or the reason it could not be computed."""

    rater_a: int
    rater_b: int
    n_units: int
    result: AgreementResult | None
    reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class SampleSizeResult:
    """How many doubly (or multiply) annotated units give the target confidence-interval width."""

    statistic: str
    n_units: int
    expected_value: float
    ci_width: float
    confidence_level: float
    n_raters: int
    unit_standard_deviation: float
    method: str

    def __int__(self) -> int:
        return int(self.n_units)


@dataclass(frozen=True, kw_only=True, eq=False)
class ReliabilityData:
    """A reliability matrix built from long records, with the labels of its rows and columns.

    ``matrix`` has shape (n_raters, n_units), NaN = not rated; ``raters[i]`` labels row ``i`` and
    ``units[j]`` column ``j``.
    """

    matrix: np.ndarray
    units: np.ndarray
    raters: np.ndarray


@dataclass(frozen=True, kw_only=True, eq=False)
class CategoryCounts:
    """Per-unit category counts: ``counts[j, k]`` raters put unit ``units[j]`` in ``categories[k]``."""

    counts: np.ndarray
    categories: np.ndarray
    units: np.ndarray | None = None


@dataclass(frozen=True, kw_only=True)
class Interpretation:
    """A verbal band for a coefficient, with the caveat that must travel with it."""

    label: str
    lower: float
    upper: float
    scheme: str
    caveat: str

    def __str__(self) -> str:
        return self.label
