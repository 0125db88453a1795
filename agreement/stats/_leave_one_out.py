"""Alpha without each rater from one pass over the ratings (private helpers of
:func:`krippendorff_alpha_leave_one_out`).

Leaving rater :math:`r` out changes only the units :math:`r` rated; for each of them the unit's
coincidence terms (or, at the interval level, its moments) lose one value. Summing those changes
per rater with ``bincount`` gives every rater's alpha at once, instead of recomputing alpha on
:math:`R` matrices.
"""

import numpy as np

from ._units import unit_kinds
from .reliability_data import _observed_codes

# Above this many distinct values the per-rater coincidence changes (raters x values^2) get large;
# the caller then deletes rows one at a time instead.
MAX_CATEGORIES = 20


def _alpha_from_sums(n, do_sum, de_sum):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(de_sum > 0, 1.0 - (n - 1.0) * do_sum / np.where(de_sum > 0, de_sum, 1.0), np.nan)


def _ratings(data: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(rater, unit, value, m) of every rating of a unit with at least two ratings."""
    present = ~np.isnan(data)
    m = present.sum(axis=0)
    rater, unit = np.nonzero(present & (m >= 2))
    return rater, unit, data[rater, unit], m.astype(np.float64)


def categorical(data: np.ndarray, level: str, difference_matrix) -> tuple[np.ndarray, np.ndarray]:
    """Per-rater alpha without that rater, for data with at most MAX_CATEGORIES distinct values.

    Returns ``(alpha_without, n_without)`` arrays of length n_raters (NaN where undefined).
    """
    return categorical_ratings(*_ratings(data), data.shape[0], level, difference_matrix)


def categorical_ratings(
    rater, unit, values, m, n_raters: int, level: str, difference_matrix
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`categorical` from the ratings of units rated at least twice: ``rater[i]`` (a row
    below ``n_raters``), ``unit[i]`` and ``values[i]``, with ``m[u]`` the ratings of unit ``u``."""
    categories, code = _observed_codes(values)
    k = categories.size
    # units renumbered in order through a count over the unit numbers (m covers them): no sort
    present = np.bincount(unit, minlength=m.size) > 0
    local = (np.cumsum(present) - 1)[unit]
    m = m[present]
    units = np.flatnonzero(present)
    counts = np.bincount(local * k + code, minlength=units.size * k).reshape(units.size, k).astype(np.float64)
    inv = 1.0 / (m - 1.0)
    # o = sum_u (N_u N_u^T - diag N_u) / (m_u - 1)
    full = np.einsum("u,uc,ud->cd", inv, counts, counts) - np.diag(inv @ counts)
    # each rating (r, u, c) removes O(N_u) and adds back O(N_u - e_c), which has weight 1 / (m_u - 2)
    # a rating's terms depend only on its unit's counts and its own category: sum them per rater
    # as how often each rater gave each (kind of unit, category)
    kinds, kind = unit_kinds(counts)
    n_kinds = len(kinds)
    given = np.bincount((rater * n_kinds + kind[local]) * k + code, minlength=n_raters * n_kinds * k)
    m_kind = kinds.sum(axis=1)
    w_old = 1.0 / (m_kind - 1.0)
    w_new = np.where(m_kind >= 3, 1.0 / np.maximum(m_kind - 2.0, 1.0), 0.0)
    change = w_new - w_old
    eye = np.eye(k)
    # (w_new - w_old) (N N^T - diag N): the unit's own terms at its new weight; then the cross terms
    # -N e_c^T - e_c N^T + 2 e_c e_c^T of (N - e_c)(N - e_c)^T - diag(N - e_c)
    own = change[:, None, None] * (kinds[:, :, None] * kinds[:, None, :] - kinds[:, :, None] * eye)
    cross = -w_new[:, None, None, None] * (
        kinds[:, None, :, None] * eye[None, :, None, :] + eye[None, :, :, None] * kinds[:, None, None, :]
    )
    cross += 2.0 * w_new[:, None, None, None] * (eye[:, :, None] * eye[:, None, :])[None]
    terms = (own[:, None] + cross).reshape(n_kinds * k, k * k)  # per (kind, category of the rating)
    per_rater = (given.reshape(n_raters, n_kinds * k).astype(np.float64) @ terms).reshape(n_raters, k, k)
    o = full[None] + per_rater
    marginals = o.sum(axis=2)
    n = marginals.sum(axis=1)
    if level == "ordinal":
        mid_ranks = np.cumsum(marginals, axis=1) - marginals / 2.0
        delta = (mid_ranks[:, :, None] - mid_ranks[:, None, :]) ** 2
    else:
        delta = np.broadcast_to(difference_matrix(level, categories, None), o.shape)
    do_sum = (o * delta).sum(axis=(1, 2))
    de_sum = np.einsum("rc,rcd,rd->r", marginals, delta, marginals)
    return _alpha_from_sums(n, do_sum, de_sum), n


def interval(data: np.ndarray):
    """Per-rater interval alpha without that rater from per-unit moments, any number of values."""
    n_raters = data.shape[0]
    rater, unit, values, m_all = _ratings(data)
    values = values - values.mean() if values.size else values  # centre: fewer cancellation errors
    units, local = np.unique(unit, return_inverse=True)
    m = m_all[units]
    s1 = np.bincount(local, weights=values, minlength=units.size)
    s2 = np.bincount(local, weights=values * values, minlength=units.size)

    def unit_terms(m_, s1_, s2_):
        """(n, S1, S2, D_o) contributions of units with m_ ratings; zero below two ratings."""
        pairable = m_ >= 2
        observed = np.where(pairable, 2.0 * (m_ * s2_ - s1_ * s1_) / np.where(pairable, m_ - 1.0, 1.0), 0.0)
        return np.where(pairable, m_, 0.0), np.where(pairable, s1_, 0.0), np.where(pairable, s2_, 0.0), observed

    full = [t.sum() for t in unit_terms(m, s1, s2)]
    old = unit_terms(m[local], s1[local], s2[local])
    new = unit_terms(m[local] - 1.0, s1[local] - values, s2[local] - values * values)
    n, t1, t2, observed = (full[j] + np.bincount(rater, weights=new[j] - old[j], minlength=n_raters) for j in range(4))
    expected = 2.0 * (n * t2 - t1 * t1)
    # a single value left: the difference of the sums is round-off (|x| ~ 1e-16 n t2), not spread
    expected = np.where(expected > 1e-10 * n * t2, expected, 0.0)
    return _alpha_from_sums(n, observed, expected), n
