r"""Leaderboard integrity: how many judgments would have to be removed to swap two neighbours of a
Bradley–Terry ranking, and whether the ranking is still provisional.

The ranking is by Bradley–Terry log-strengths with ties as half-wins (:func:`bradley_terry`).

References
----------
.. [1] T. Broderick, R. Giordano and R. Meager, "An Automatic Finite-Sample Robustness Metric: When
   Can Dropping a Little Data Make a Big Difference?", 2020, https://arxiv.org/abs/2011.14999
   (the approximate maximum influence perturbation behind the greedy choice below).
.. [2] F. R. Hampel, "The Influence Curve and Its Role in Robust Estimation", *JASA* 69(346), 1974,
   https://doi.org/10.1080/01621459.1974.10482962.
"""

from dataclasses import dataclass

import numpy as np
from scipy import special

from ._resampling import plain
from .errors import InsufficientDataError
from .pairwise import WINS, _check_comparisons, _fit_half, _has_mle


@dataclass(frozen=True)
class AdjacentMargin:
    """Neighbours ``upper`` (ranked just above) and ``lower`` of the ranking.

    ``removals_to_flip`` is the number of judgments the greedy search removed until ``lower``'s
    refitted strength reached ``upper``'s, None if it did not within ``max_removals`` or no
    judgment could be removed without leaving the fit without a finite estimate. ``removed``
    lists what it removed as (first, second, is_tie, count): the winner and the loser of decided
    judgments, the two systems of ties.
    """

    upper: object
    lower: object
    gap: float
    removals_to_flip: int | None
    removed: tuple[tuple[object, object, bool, int], ...]


@dataclass(frozen=True)
class LeaderboardIntegrity:
    """The ranking (strongest first) with its strengths, each system's number of judgments, the
    adjacent margins, and ``provisional``: some system has fewer than ``min_judgments``."""

    ranking: tuple
    strengths: tuple[float, ...]
    judgments: tuple[int, ...]
    min_judgments: int
    provisional: bool
    under_minimum: tuple
    margins: tuple[AdjacentMargin, ...]


def _tables_from_kinds(k, kinds, counts):
    wins = np.zeros((k, k))
    ties = np.zeros((k, k))
    decided = ~kinds[:, 2].astype(bool)
    np.add.at(wins, (kinds[decided, 0], kinds[decided, 1]), counts[decided])
    np.add.at(ties, (kinds[~decided, 0], kinds[~decided, 1]), counts[~decided])
    return wins, ties + ties.T


def _fit(k, kinds, counts):
    wins, ties = _tables_from_kinds(k, kinds, counts)
    return _fit_half(wins[None], ties[None], 100, 1e-12)[0], wins, ties


def _admissible(k, kinds, counts):
    """Per kind: can one judgment of it go while the fit keeps a finite estimate? Only the last
    judgment of a kind changes who beat whom at all, so only those kinds are checked (in one batch)."""
    out = counts > 1
    last = np.flatnonzero(counts == 1)
    if len(last):
        wins, ties = _tables_from_kinds(k, kinds, counts)
        beats = np.repeat((wins + ties / 2.0)[None], len(last), axis=0)
        a, b, tie = kinds[last, 0], kinds[last, 1], kinds[last, 2].astype(bool)
        rows = np.arange(len(last))
        beats[rows, a, b] -= np.where(tie, 0.5, 1.0)
        beats[rows[tie], b[tie], a[tie]] -= 0.5
        out[last] = _has_mle(beats)
    return out


def _flip(k, kinds, counts, upper, lower, max_removals):
    counts = counts.copy()
    removed = np.zeros_like(counts)
    contrast = np.zeros(k)
    contrast[upper], contrast[lower] = 1.0, -1.0
    centre = np.full((k, k), 1.0 / k)
    for step in range(max_removals + 1):
        theta, wins, ties = _fit(k, kinds, counts)
        if theta[lower] >= theta[upper] - 1e-9:
            return step, removed
        if step == max_removals:
            return None, removed
        w = wins + ties / 2.0
        n = w + w.T
        p = special.expit(theta[:, None] - theta[None, :])
        weight = n * p * (1.0 - p)
        information = np.eye(k) * weight.sum(axis=1) - weight
        direction = np.linalg.solve(information + centre, contrast)  # I^{-1} c on the sum-zero space
        # gradient of one judgment's log-likelihood: (s - p_ij)(e_i - e_j), s = 1 for a win, 1/2 a tie
        a, b = kinds[:, 0], kinds[:, 1]
        score = np.where(kinds[:, 2].astype(bool), 0.5, 1.0)
        change = -(score - p[a, b]) * (direction[a] - direction[b])  # predicted change of the gap
        ok = _admissible(k, kinds, counts)
        if not ok.any():
            return None, removed
        c = int(np.argmin(np.where(ok, change, np.inf)))
        counts[c] -= 1
        removed[c] += 1
    return None, removed


def leaderboard_integrity(first, second, outcome, *, min_judgments=0, max_removals=1000) -> LeaderboardIntegrity:
    r"""For each pair of neighbours in the Bradley–Terry ranking, how many judgments would have to
    be removed to swap them; and whether the ranking is provisional.

    Parameters
    ----------
    first, second, outcome : array_like, shape (n_comparisons,)
        As in :func:`bradley_terry` (0 first loses, 1 tie, 2 first wins).
    min_judgments : int
        The ranking is provisional while some system has fewer judgments than this.
    max_removals : int
        Give up (``removals_to_flip`` None) after removing this many judgments for one pair.

    Raises
    ------
    InsufficientDataError
        The data have no finite Bradley–Terry estimate.

    Notes
    -----
    **Definition.** For neighbours :math:`A` (above) and :math:`B`, the flip count is the size of
    the smallest set of judgments whose removal, followed by a refit of the Bradley–Terry model on
    the rest (ties as half-wins), leaves :math:`\hat\theta_B \ge \hat\theta_A`. Finding the
    smallest set exactly is a combinatorial search, so this function returns the size of a set
    found greedily, which *does* flip the pair (it is checked by the refit) and is therefore an
    upper bound on the minimum; tests compare it with an exhaustive search on small cases, where
    the two agree.

    **Search.** Judgments are grouped into kinds (who beat whom, or a tie between whom); all
    judgments of a kind have the same effect. At each step the model is refitted and, for every
    kind, the change of the gap :math:`\hat\theta_A - \hat\theta_B` from removing one judgment
    of it is predicted by its influence [2]_: removing a judgment with log-likelihood gradient
    :math:`g` moves :math:`\hat\theta` by about :math:`-I^{-1}g` (:math:`I` the observed
    information), as in [1]_. One judgment of the kind with the most negative predicted change is
    removed, among the kinds whose removal keeps a finite estimate; this repeats until the refit
    flips the pair, no kind can be removed, or ``max_removals`` is reached.

    Examples
    --------
    Five wins to two: removing three of the five wins levels the pair.

    >>> r = leaderboard_integrity(["a"] * 7, ["b"] * 7, [2] * 5 + [0] * 2)
    >>> r.margins[0].removals_to_flip, r.margins[0].removed
    (3, (('a', 'b', False, 3),))
    """
    if isinstance(min_judgments, bool) or not isinstance(min_judgments, int | np.integer) or min_judgments < 0:
        raise ValueError(f"min_judgments must be a non-negative whole number, got {min_judgments!r}")
    if isinstance(max_removals, bool) or not isinstance(max_removals, int | np.integer) or max_removals < 0:
        raise ValueError(f"max_removals must be a non-negative whole number, got {max_removals!r}")
    labels, i, j, y = _check_comparisons(first, second, outcome)
    k = len(labels)
    if k < 2:
        raise InsufficientDataError("a ranking needs comparisons between at least two systems")
    tie = y == 1.0
    winner = np.where(y == WINS, i, j)
    loser = np.where(y == WINS, j, i)
    a = np.where(tie, np.minimum(i, j), winner)
    b = np.where(tie, np.maximum(i, j), loser)
    kinds, counts = np.unique(np.column_stack([a, b, tie.astype(int)]), axis=0, return_counts=True)
    counts = counts.astype(float)
    wins, ties = _tables_from_kinds(k, kinds, counts)
    if not _has_mle((wins + ties / 2.0)[None])[0]:
        raise InsufficientDataError(
            "no finite Bradley–Terry estimate: some system never won (or never lost) "
            "against the others, or the systems split into groups that never met"
        )
    theta = _fit(k, kinds, counts)[0]
    order = np.argsort(-theta, kind="stable")
    margins = []
    for upper, lower in zip(order[:-1], order[1:], strict=True):
        flips, removed = _flip(k, kinds, counts, upper, lower, int(max_removals))
        margins.append(
            AdjacentMargin(
                upper=plain(labels[upper]),
                lower=plain(labels[lower]),
                gap=float(theta[upper] - theta[lower]),
                removals_to_flip=flips,
                removed=tuple(
                    (plain(labels[kinds[c, 0]]), plain(labels[kinds[c, 1]]), bool(kinds[c, 2]), int(removed[c]))
                    for c in np.flatnonzero(removed)
                ),
            )
        )
    judgments = np.bincount(np.concatenate([i, j]), minlength=k)
    under = tuple(plain(labels[s]) for s in order if judgments[s] < min_judgments)
    return LeaderboardIntegrity(
        ranking=tuple(plain(labels[s]) for s in order),
        strengths=tuple(float(theta[s]) for s in order),
        judgments=tuple(int(judgments[s]) for s in order),
        min_judgments=int(min_judgments),
        provisional=bool(under),
        under_minimum=under,
        margins=tuple(margins),
    )
