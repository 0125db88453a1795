"""Metric–human correlation at system, item and global level (Pearson, Spearman, Kendall τ-b),
with bootstrap intervals over items.

Data are two matrices of shape (n_items, n_systems): the human score and the metric score of each
system's output on each item (NaN where the system has no output or no score there).
"""

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._resampling import (
    as_float_array,
    bootstrap_counts,
    check_choice,
    check_confidence,
    check_resampling,
    percentile_interval,
)
from .errors import InsufficientDataError

METHODS = ("pearson", "spearman", "kendall")
LEVELS = ("system", "item", "global")
# The variant of Kendall's tau computed everywhere here, printed beside the value.
KENDALL_VARIANT = "tau-b"
# Up to this many columns Kendall's tau is computed over all pairs at once, vectorised over rows.
_PAIRWISE_MAX_COLUMNS = 400


@dataclass(frozen=True)
class CorrelationResult:
    """A correlation at one ``level``; ``n`` counts systems (system level), items with a defined
    per-item correlation (item level) or outputs (global level)."""

    method: str
    level: str
    value: float
    ci_low: float
    ci_high: float
    n: int
    n_resamples: int

    @property
    def label(self) -> str:
        """E.g. "Kendall tau-b (system level)": the level is always printed beside the number."""
        name = f"Kendall {KENDALL_VARIANT}" if self.method == "kendall" else self.method.capitalize()
        return f"{name} ({self.level} level)"


def _rank_rows(x: np.ndarray) -> np.ndarray:
    """Average ranks within each row, NaN kept as NaN (ties share their mean rank)."""
    return stats.rankdata(x, axis=1, nan_policy="omit")


def _pearson_rows(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """Weighted Pearson correlation of each row pair over the columns where both are present."""
    ok = ~np.isnan(x) & ~np.isnan(y)
    weight = ok.astype(float) if w is None else np.where(ok, w, 0.0)
    x0, y0 = np.where(ok, x, 0.0), np.where(ok, y, 0.0)
    total = weight.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = (weight * x0).sum(axis=1) / total
        my = (weight * y0).sum(axis=1) / total
        dx, dy = np.where(ok, x0 - mx[:, None], 0.0), np.where(ok, y0 - my[:, None], 0.0)
        sxy = (weight * dx * dy).sum(axis=1)
        sxx = (weight * dx * dx).sum(axis=1)
        syy = (weight * dy * dy).sum(axis=1)
        r = sxy / np.sqrt(sxx * syy)
    # a constant variable leaves the correlation undefined, whatever rounding says
    r[
        (sxx <= 1e-12 * np.maximum(1.0, (weight * x0 * x0).sum(axis=1)))
        | (syy <= 1e-12 * np.maximum(1.0, (weight * y0 * y0).sum(axis=1)))
        | (total < 2)
    ] = np.nan
    return np.clip(r, -1.0, 1.0)


def _kendall_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    r"""Kendall's :math:`\tau_b` of each row pair over the columns where both are present:
    :math:`\sum_{i<j} \mathrm{sgn}(x_i-x_j)\mathrm{sgn}(y_i-y_j) / \sqrt{(n_0-n_1)(n_0-n_2)}`,
    where :math:`n_0 - n_1` counts pairs untied in x (Kendall 1945, as in [2])."""
    ok = ~np.isnan(x) & ~np.isnan(y)
    i, j = np.triu_indices(x.shape[1], 1)
    both = ok[:, i] & ok[:, j]
    with np.errstate(invalid="ignore"):
        sx = np.where(both, np.sign(x[:, i] - x[:, j]), 0.0)
        sy = np.where(both, np.sign(y[:, i] - y[:, j]), 0.0)
        tau = (sx * sy).sum(axis=1) / np.sqrt((sx * sx).sum(axis=1) * (sy * sy).sum(axis=1))
    return np.clip(tau, -1.0, 1.0)


def correlation_rows(x, y, *, method="pearson") -> np.ndarray:
    r"""Correlation of each row of ``x`` with the same row of ``y``, over the columns where both
    are present (pairwise deletion of NaN).

    Parameters
    ----------
    x, y : array_like, shape (n_rows, n_columns)
    method : {"pearson", "spearman", "kendall"}
        Spearman is Pearson on average ranks; Kendall is :math:`\tau_b`, the variant that corrects
        for ties [1]_ (``scipy.stats.kendalltau``'s default).

    Returns
    -------
    numpy.ndarray, shape (n_rows,)
        NaN where a row has fewer than two shared columns or a constant variable.

    References
    ----------
    .. [1] M. G. Kendall, "The Treatment of Ties in Ranking Problems", *Biometrika* 33(3), 1945,
       https://doi.org/10.2307/2332303.
    .. [2] SciPy, ``scipy.stats.kendalltau``,
       https://docs.scipy.org/doc/scipy/reference/generated/scipy.stats.kendalltau.html.

    Examples
    --------
    The ``scipy.stats.kendalltau`` documentation's example gives :math:`\tau_b = -0.4714`; the
    Wikipedia example of Spearman's coefficient (IQ against hours of TV a week) gives
    :math:`\rho = -29/165 = -0.1758`.

    >>> round(float(correlation_rows([[12, 2, 1, 12, 2]], [[1, 4, 7, 1, 0]], method="kendall")[0]), 4)
    -0.4714
    >>> iq = [[106, 100, 86, 101, 99, 103, 97, 113, 112, 110]]
    >>> tv = [[7, 27, 2, 50, 28, 29, 20, 12, 6, 17]]
    >>> round(float(correlation_rows(iq, tv, method="spearman")[0]), 4)
    -0.1758
    """
    check_choice("method", method, METHODS)
    x, y = as_float_array(x, "x", ndim=2), as_float_array(y, "y", ndim=2)
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same shape; got {x.shape} and {y.shape}")
    if method == "kendall":
        if x.shape[1] <= _PAIRWISE_MAX_COLUMNS:
            return _kendall_rows(x, y)
        # long rows (global level): scipy's O(n log n) algorithm instead of all n^2/2 pairs
        out = np.full(x.shape[0], np.nan)
        for r, (xr, yr) in enumerate(zip(x, y, strict=True)):
            ok = ~np.isnan(xr) & ~np.isnan(yr)
            if ok.sum() >= 2 and np.ptp(xr[ok]) > 0 and np.ptp(yr[ok]) > 0:
                out[r] = stats.kendalltau(xr[ok], yr[ok], variant="b").statistic
        return out
    if method == "spearman":
        ok = ~np.isnan(x) & ~np.isnan(y)
        x, y = _rank_rows(np.where(ok, x, np.nan)), _rank_rows(np.where(ok, y, np.nan))
    return _pearson_rows(x, y)


def correlation(
    human, metric, *, method="pearson", level="system", confidence=0.95, n_resamples=1000, rng=None
) -> CorrelationResult:
    r"""Correlation between a metric and human scores at one level, with a bootstrap interval.

    Parameters
    ----------
    human, metric : array_like, shape (n_items, n_systems)
        Each system's human score (e.g. mean rating) and metric score on each item; NaN where
        missing.
    method : {"pearson", "spearman", "kendall"}
        Kendall is :math:`\tau_b`.
    level : {"system", "item", "global"}
        ``"system"``: correlate the per-system means over items (each computed from the items
        where the system has both scores). ``"item"``: correlate across systems within each item,
        then average over the items where it is defined (the "story level" of [1]_, the
        "segment level" of WMT). ``"global"``: correlate over all outputs pooled.
    confidence, n_resamples, rng
        Percentile interval from resampling items (rows) with replacement [2]_.

    Returns
    -------
    CorrelationResult

    Raises
    ------
    InsufficientDataError
        The correlation is undefined on the data (fewer than two systems or outputs, a constant
        variable, no item with a defined correlation).

    Notes
    -----
    System level: :math:`r(\bar h_s, \bar m_s)` with :math:`\bar h_s` the mean over items.
    Item level: :math:`\frac{1}{|I'|}\sum_{i \in I'} r(h_{i\cdot}, m_{i\cdot})`, :math:`I'` the
    items whose correlation is defined (NaN skipped, as HANNA does [1]_).
    Global level: :math:`r` over every (item, system) cell with both scores.

    References
    ----------
    .. [1] C. Chhun et al., "Of Human Criteria and Automatic Metrics: A Benchmark of the
       Evaluation of Story Generation", COLING 2022, https://aclanthology.org/2022.coling-1.509/.
    .. [2] M. Deutsch, R. Dror and D. Roth, "A Statistical Analysis of Summarization Evaluation
       Metrics Using Resampling Methods", TACL 9, 2021, https://doi.org/10.1162/tacl_a_00417.

    Examples
    --------
    >>> import numpy as np
    >>> h = np.array([[1, 2, 3], [2, 3, 4], [1, 3, 2.0]])
    >>> m = np.array([[0.1, 0.2, 0.3], [0.2, 0.1, 0.4], [0.1, 0.3, 0.2]])
    >>> r = correlation(h, m, method="kendall", level="item", n_resamples=0)
    >>> r.label, round(r.value, 4), r.n
    ('Kendall tau-b (item level)', 0.7778, 3)
    """
    check_choice("method", method, METHODS)
    check_choice("level", level, LEVELS)
    confidence = check_confidence(confidence)
    n_resamples = check_resampling(n_resamples, rng)
    h, m = as_float_array(human, "human", ndim=2), as_float_array(metric, "metric", ndim=2)
    if h.shape != m.shape:
        raise ValueError(f"human and metric must have the same shape; got {h.shape} and {m.shape}")
    both = ~np.isnan(h) & ~np.isnan(m)
    h, m = np.where(both, h, np.nan), np.where(both, m, np.nan)

    if level == "system":
        values, n = _system_level(h, m, method, np.ones((1, h.shape[0])))
    elif level == "item":
        per_item = correlation_rows(h, m, method=method)
        defined = ~np.isnan(per_item)
        values, n = (
            np.array([per_item[defined].mean()]) if defined.any() else np.array([np.nan]),
            int(defined.sum()),
        )
    else:
        values = correlation_rows(h.reshape(1, -1), m.reshape(1, -1), method=method)
        n = int(both.sum())
    value = float(values[0])
    if np.isnan(value):
        raise InsufficientDataError(
            f"the {level}-level {method} correlation is undefined here: it needs at "
            f"least two {'systems' if level == 'system' else 'outputs'} with both scores "
            f"and neither score constant"
        )

    low = high = np.nan
    if n_resamples:
        samples = []
        for w in bootstrap_counts(h.shape[0], n_resamples, rng):
            if level == "system":
                samples.append(_system_level(h, m, method, w)[0])
            elif level == "item":
                with np.errstate(invalid="ignore"):
                    samples.append((w[:, defined] @ per_item[defined]) / w[:, defined].sum(axis=1))
            else:
                samples.append(_global_level(h, m, method, w))
        low, high = (float(v) for v in percentile_interval(np.concatenate(samples), confidence))
    return CorrelationResult(method, level, value, low, high, n, n_resamples)


def _system_level(h: np.ndarray, m: np.ndarray, method: str, w: np.ndarray) -> tuple[np.ndarray, int]:
    """System-level correlations under item weights ``w`` (B, n_items)."""
    both = ~np.isnan(h) & ~np.isnan(m)
    present = both.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        hs = (w @ np.where(both, h, 0.0)) / (w @ present)
        ms = (w @ np.where(both, m, 0.0)) / (w @ present)
    return correlation_rows(hs, ms, method=method), int((present.sum(axis=0) > 0).sum())


def _global_level(h: np.ndarray, m: np.ndarray, method: str, w: np.ndarray) -> np.ndarray:
    """Global-level correlations of the outputs of each bootstrap sample of items."""
    if method == "pearson":
        cell_w = np.repeat(w, h.shape[1], axis=1)
        return _pearson_rows(np.broadcast_to(h.ravel(), cell_w.shape), np.broadcast_to(m.ravel(), cell_w.shape), cell_w)
    # rank correlations of a sample with repeated items: materialise each sample's outputs
    out = np.empty(w.shape[0])
    for b, counts in enumerate(w.astype(int)):
        rows = np.repeat(np.arange(h.shape[0]), counts)
        out[b] = correlation_rows(h[rows].reshape(1, -1), m[rows].reshape(1, -1), method=method)[0]
    return out
