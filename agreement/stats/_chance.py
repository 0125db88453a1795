"""Shared core of the multi-rater chance-corrected coefficients (Fleiss, AC1/AC2, Brennan-Prediger).

All of them are (p_a - p_e) / (1 - p_e) on per-unit category counts, with Gwet's (2014)
linearised variance; only p_e differs.
"""

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .errors import InsufficientDataError
from .results import AgreementResult

KINDS = ("fleiss", "gwet", "brennan_prediger")


@dataclass(frozen=True)
class ChanceCorrected:
    value: float
    pa: float
    pe: float
    n_units: int
    n_rated: int
    standard_error: float | None
    confidence_interval: tuple[float, float] | None
    t: float | None
    p_value: float | None

    def as_result(self, statistic: str, variant, n_raters: int, level: float) -> AgreementResult:
        return AgreementResult(
            statistic=statistic,
            variant=variant,
            value=self.value,
            n_units=self.n_units,
            n_raters=n_raters,
            observed_agreement=self.pa,
            expected_agreement=self.pe,
            standard_error=self.standard_error,
            confidence_interval=self.confidence_interval,
            confidence_level=level,
            test_statistic=self.t,
            p_value=self.p_value,
        )


def as_counts(counts) -> np.ndarray:
    """Validate an (n_units, n_categories) table of non-negative integer counts."""
    try:
        table = np.asarray(counts, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("counts must be numbers: raters per unit (rows) and category (columns)") from None
    if table.ndim != 2:
        raise ValueError(f"counts must be 2-D, shape (n_units, n_categories); got shape {table.shape}")
    if table.size == 0:
        raise InsufficientDataError(f"counts are empty: shape {table.shape} has no unit or no category")
    if not np.isfinite(table).all() or (table < 0).any() or not np.array_equal(table, np.round(table)):
        raise ValueError("counts must be non-negative whole numbers of raters")
    return table


def chance_corrected(counts: np.ndarray, weights: np.ndarray, kind: str, confidence_level: float):
    r"""Coefficient, p_a, p_e and Gwet's linearised standard error from per-unit counts.

    Units with no rating are dropped; p_a uses units with >= 2 ratings, the category shares
    :math:`\pi_k` all rated units (Gwet 2014, ch. 2 and 5).
    """
    r_i = counts.sum(axis=1)
    table = counts[r_i > 0]
    r_i = r_i[r_i > 0]
    n = table.shape[0]
    q = table.shape[1]
    if n == 0:
        raise InsufficientDataError("no unit has any rating")
    multi = r_i >= 2
    n2 = int(multi.sum())
    if n2 == 0:
        raise InsufficientDataError("no unit is rated by at least two raters, so there is no agreement to measure")
    identity = np.array_equal(weights, np.eye(q))
    weighted = table if identity else table @ weights.T  # r*_ik = sum_l w_kl r_il
    denom = np.where(multi, r_i * (r_i - 1.0), 1.0)
    pa_i = np.where(multi, (table * (weighted - 1.0)).sum(axis=1) / denom, 0.0)
    pa = float(pa_i.sum() / n2)
    shares = table / r_i[:, None]
    pi = shares.mean(axis=0)
    total_w = float(weights.sum())
    if kind == "gwet":
        if q < 2:
            raise InsufficientDataError(
                "a single category: AC1/AC2 need at least two (declare the scale with categories=...)"
            )
        pe = total_w * float((pi * (1.0 - pi)).sum()) / (q * (q - 1.0))
        pe_i = total_w / (q * (q - 1.0)) * (shares @ (1.0 - pi))
    elif kind == "fleiss":
        pe = float(pi @ weights @ pi)
        pi_w = (weights + weights.T) / 2.0 @ pi
        pe_i = shares @ pi_w
    else:
        if q < 2:
            raise InsufficientDataError(
                "a single category: Brennan-Prediger needs at least two (declare categories=...)"
            )
        pe = total_w / (q * q)
        pe_i = np.full(n, pe)
    if 1.0 - pe <= 1e-12:
        raise InsufficientDataError(
            "a single category is in use, so chance agreement is 1 and the coefficient is undefined"
        )
    value = (pa - pe) / (1.0 - pe)
    se = ci = t = p = None
    if n >= 2:
        # Gwet (2014) linearisation: per-unit coefficient corrected for the estimated p_e
        coef_i = (n / n2) * (pa_i - pe * multi) / (1.0 - pe)
        coef_i -= 2.0 * (1.0 - value) * (pe_i - pe) / (1.0 - pe)
        var = float(((coef_i - value) ** 2).sum() / (n * (n - 1.0)))
        se = float(np.sqrt(var))
        quantile = float(stats.t.ppf(0.5 + confidence_level / 2.0, n - 1))
        ci = (value - quantile * se, min(1.0, value + quantile * se))
        if se > 0:
            t = value / se
            p = float(2.0 * stats.t.sf(abs(t), n - 1))
    return ChanceCorrected(value, pa, pe, n2, n, se, ci, t, p)
