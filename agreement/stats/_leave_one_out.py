"""Alpha without each rater from one pass over the ratings (private helpers of
:func:`krippendorff_alpha_leave_one_out`).

Leaving rater :math:`r` out changes only the units :math:`r` rated; for each of them the unit's
coincidence terms (or, at the interval level, its moments) lose one value. Summing those changes
per rater with ``bincount`` gives every rater's alpha at once, instead of recomputing alpha on
:math:`R` matrices.
"""
import numpy as np

# Above this many distinct values the per-rater coincidence changes (raters x values^2) get large;
# the caller then deletes rows one at a time instead.
MAX_CATEGORIES = 20


def _alpha_from_sums(n, do_sum, de_sum):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(de_sum > 0, 1.0 - (n - 1.0) * do_sum / np.where(de_sum > 0, de_sum, 1.0), np.nan)


def _ratings(data: np.ndarray):
    """(rater, unit, value, m) of every rating of a unit with at least two ratings."""
    present = ~np.isnan(data)
    m = present.sum(axis=0)
    rater, unit = np.nonzero(present & (m >= 2))
    return rater, unit, data[rater, unit], m.astype(np.float64)


def categorical(data: np.ndarray, level: str, difference_matrix):
    """Per-rater alpha without that rater, for data with at most MAX_CATEGORIES distinct values.

    Returns ``(alpha_without, n_without)`` arrays of length n_raters (NaN where undefined).
    """
    n_raters = data.shape[0]
    rater, unit, values, m = _ratings(data)
    categories, code = np.unique(values, return_inverse=True)
    k = categories.size
    units, local = np.unique(unit, return_inverse=True)
    m = m[units]
    counts = np.bincount(local * k + code, minlength=units.size * k).reshape(units.size, k).astype(np.float64)
    inv = 1.0 / (m - 1.0)
    # o = sum_u (N_u N_u^T - diag N_u) / (m_u - 1)
    full = np.einsum("u,uc,ud->cd", inv, counts, counts) - np.diag(inv @ counts)
    # each rating (r, u, c) removes O(N_u) and adds back O(N_u - e_c), which has weight 1 / (m_u - 2)
    w_old = inv[local]
    w_new = np.where(m[local] >= 3, 1.0 / np.maximum(m[local] - 2.0, 1.0), 0.0)
    n_u = counts[local]  # (n_ratings, k)
    cells = np.arange(k * k)

    def per_rater(offsets: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Sum ``weights`` (n_ratings, j) into (n_raters, k, k) cells ``rater * k * k + offsets``."""
        index = (rater[:, None] * (k * k) + offsets).ravel()
        return np.bincount(index, weights=weights.ravel(), minlength=n_raters * k * k).reshape(n_raters, k, k)

    # (w_new - w_old) N N^T + (w_old - w_new) diag N: the unit's own terms at its new weight
    change = w_new - w_old
    removed = per_rater(np.broadcast_to(cells, (len(rater), k * k)),
                        (change[:, None, None] * n_u[:, :, None] * n_u[:, None, :]).reshape(len(rater), -1))
    removed += per_rater(np.broadcast_to(np.arange(k) * (k + 1), (len(rater), k)), -change[:, None] * n_u)
    # the cross terms -N e_c^T - e_c N^T + 2 e_c e_c^T of (N - e_c)(N - e_c)^T - diag(N - e_c)
    cross = per_rater(np.arange(k)[None, :] * k + code[:, None], -(w_new[:, None] * n_u))
    cross += cross.transpose(0, 2, 1)
    cross += per_rater((code * (k + 1))[:, None], 2.0 * w_new[:, None])
    o = full[None] + removed + cross
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
    n, t1, t2, observed = (full[j] + np.bincount(rater, weights=new[j] - old[j], minlength=n_raters)
                           for j in range(4))
    return _alpha_from_sums(n, observed, 2.0 * (n * t2 - t1 * t1)), n
