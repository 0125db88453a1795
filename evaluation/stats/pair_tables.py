"""Bradley–Terry at scale: comparisons aggregated to per-pair win and tie counts first, the
bootstrap drawn as multinomial counts of those cells.

Millions of comparisons between a few dozen systems fall into at most k(k − 1) win cells and
k(k − 1)/2 tie cells; every fit and every bootstrap replicate then works on the cells, so its cost
does not grow with the number of comparisons.
"""

from dataclasses import dataclass

import numpy as np

from ._resampling import check_choice, check_confidence, check_resampling, percentile_interval, plain
from .errors import InsufficientDataError
from .pairwise import (
    TIE_MODELS,
    BradleyTerryResult,
    _check_comparisons,
    _davidson_negloglik,
    _fit_davidson,
    _fit_half,
    _half_gradient_norm,
    _half_loglik,
    _has_mle,
)


@dataclass(frozen=True, eq=False)
class PairTables:
    """``wins[i, j]``: comparisons ``systems[i]`` won against ``systems[j]``; ``ties`` symmetric."""

    systems: tuple
    wins: np.ndarray
    ties: np.ndarray

    @property
    def n_comparisons(self) -> int:
        return int(self.wins.sum() + np.triu(self.ties).sum())


def pair_tables(first, second, outcome) -> PairTables:
    """Aggregate comparisons (coded as in :func:`bradley_terry`: 0 first loses, 1 tie, 2 first
    wins) to win and tie tables, with one ``bincount`` per kind.

    Examples
    --------
    >>> t = pair_tables(["a", "a", "b"], ["b", "b", "a"], [2, 1, 2])
    >>> t.wins.tolist(), t.ties.tolist()
    ([[0, 1], [1, 0]], [[0, 1], [1, 0]])
    """
    labels, i, j, y = _check_comparisons(first, second, outcome)
    k = len(labels)
    winner = np.where(y == 2.0, i, j)
    loser = np.where(y == 2.0, j, i)
    decided = y != 1.0
    wins = np.bincount(winner[decided] * k + loser[decided], minlength=k * k).reshape(k, k)
    low, high = np.minimum(i[~decided], j[~decided]), np.maximum(i[~decided], j[~decided])
    ties = np.bincount(low * k + high, minlength=k * k).reshape(k, k)
    return PairTables(tuple(plain(x) for x in labels), wins, ties + ties.T)


def bradley_terry_tables(
    tables: PairTables, *, ties="half", confidence=0.95, n_resamples=1000, rng=None, max_iter=100, tol=1e-10
) -> BradleyTerryResult:
    r"""Bradley–Terry (ties as half-wins, or Davidson's model) fitted on aggregated tables, with a
    bootstrap over comparisons drawn as multinomial cell counts.

    Parameters
    ----------
    tables : PairTables
        From :func:`pair_tables` (or built by a caller that counted elsewhere, e.g. in SQL).
    ties, confidence, n_resamples, rng, max_iter, tol
        As in :func:`bradley_terry`.

    Notes
    -----
    The fit is the one of :func:`bradley_terry` (the likelihood depends on the data only through
    the tables). A bootstrap sample of :math:`n` comparisons drawn with replacement from the
    :math:`n` observed ones holds, in each (pair, outcome) cell :math:`c`, a count distributed
    jointly as :math:`\text{Multinomial}(n, (n_c/n)_c)` (Efron and Tibshirani 1993, §6.2,
    applied to the cells), so drawing those counts directly gives the same bootstrap distribution
    as resampling the comparisons, at a cost independent of :math:`n`. This is the bootstrap with
    each comparison its own unit, as Chatbot Arena's leaderboard draws it (Chiang et al. 2024);
    a clustered bootstrap (all judgments of an item together) needs :func:`bradley_terry`'s
    ``units``.
    """
    check_choice("ties", ties, TIE_MODELS)
    confidence = check_confidence(confidence)
    n_resamples = check_resampling(n_resamples, rng)
    wins = np.asarray(tables.wins, dtype=float)
    tie_table = np.asarray(tables.ties, dtype=float)
    k = len(tables.systems)
    if wins.shape != (k, k) or tie_table.shape != (k, k) or not np.array_equal(tie_table, tie_table.T):
        raise ValueError("tables must be k × k for k systems, with a symmetric ties table")
    if (wins < 0).any() or (tie_table < 0).any() or np.diag(wins).any() or np.diag(tie_table).any():
        raise ValueError("tables hold non-negative counts between different systems")
    if k < 2:
        raise InsufficientDataError("Bradley–Terry needs comparisons between at least two systems")
    if not _has_mle((wins + tie_table / 2.0)[None])[0]:
        raise InsufficientDataError(
            "no finite Bradley–Terry estimate: some system never won (or never lost) "
            "against the others, or the systems split into groups that never met"
        )
    if ties == "half":
        theta = _fit_half(wins[None], tie_table[None], max_iter, tol)[0]
        nu, loglik = None, _half_loglik(theta, wins, tie_table)
    else:
        theta, nu, loglik = _fit_davidson(wins, tie_table, max_iter, tol)
    if nu:
        gradient_norm = float(np.abs(_davidson_negloglik(np.append(theta, np.log(nu)), wins, tie_table)[1]).max())
    else:
        gradient_norm = _half_gradient_norm(theta, wins, tie_table)

    low = high = np.full(k, np.nan)
    failed = 0
    if n_resamples:
        upper = np.triu(np.ones((k, k), dtype=bool), 1)
        win_cells = np.flatnonzero(wins.ravel())
        tie_cells = np.flatnonzero((tie_table * upper).ravel())
        counts = np.concatenate([wins.ravel()[win_cells], tie_table.ravel()[tie_cells]])
        n = int(counts.sum())
        draws = rng.multinomial(n, counts / n, size=n_resamples).astype(float)
        bw = np.zeros((n_resamples, k * k))
        bt = np.zeros((n_resamples, k * k))
        bw[:, win_cells] = draws[:, : len(win_cells)]
        bt[:, tie_cells] = draws[:, len(win_cells) :]
        bw = bw.reshape(n_resamples, k, k)
        bt = bt.reshape(n_resamples, k, k)
        bt = bt + np.swapaxes(bt, 1, 2)
        ok = _has_mle(bw + bt / 2.0)
        samples = np.full((n_resamples, k), np.nan)
        if ok.any():
            if ties == "half":
                samples[ok] = _fit_half(bw[ok], bt[ok], max_iter, tol)
            else:
                samples[ok] = [_fit_davidson(w, t, max_iter, tol)[0] for w, t in zip(bw[ok], bt[ok], strict=True)]
        failed = int((~ok).sum())
        low, high = percentile_interval(samples, confidence)

    return BradleyTerryResult(
        systems=tables.systems,
        strengths=tuple(float(v) for v in theta),
        ci_low=tuple(float(v) for v in low),
        ci_high=tuple(float(v) for v in high),
        ties=ties,
        tie_parameter=nu,
        n_comparisons=tables.n_comparisons,
        log_likelihood=loglik,
        n_resamples=n_resamples,
        n_resamples_without_mle=failed,
        gradient_norm=gradient_norm,
    )
