"""Best–worst scaling: the tuple design, counting scores, the MaxDiff (multinomial-logit) fit with
bootstrap intervals, split-half reliability with the Spearman–Brown correction, and agreement on
the pairwise preferences a best–worst answer implies.

A judgment is one rater's answer on one tuple: the tuple's items (a row of ``tuples``), the item
picked as best and the item picked as worst.

References
----------
.. [1] J. J. Louviere, T. N. Flynn and A. A. J. Marley, *Best-Worst Scaling: Theory, Methods and
   Applications*, Cambridge University Press, 2015.
.. [2] S. Kiritchenko and S. M. Mohammad, "Best-Worst Scaling More Reliable than Rating Scales: A
   Case Study on Sentiment Intensity Annotation", ACL 2017, https://doi.org/10.18653/v1/P17-2074.
.. [3] S. Kiritchenko and S. M. Mohammad, "Capturing Reliable Fine-Grained Sentiment Associations
   by Crowdsourcing and Best-Worst Scaling", NAACL 2016, https://doi.org/10.18653/v1/N16-1095.
.. [4] A. A. J. Marley and J. J. Louviere, "Some probabilistic models of best, worst, and
   best-worst choices", *Journal of Mathematical Psychology* 49(6), 2005,
   https://doi.org/10.1016/j.jmp.2005.05.003.
"""

from dataclasses import dataclass
from itertools import permutations

import numpy as np
from scipy import stats

from ._resampling import bootstrap_counts, check_confidence, check_resampling, codes, percentile_interval, plain
from .errors import InsufficientDataError
from .pairwise import _has_mle


@dataclass(frozen=True)
class BwsScores:
    """Counting scores: (best − worst) / appearances per item, from −1 to 1 [3]_."""

    items: tuple
    scores: tuple[float, ...]
    best: tuple[int, ...]
    worst: tuple[int, ...]
    appearances: tuple[int, ...]

    def ranking(self) -> list:
        return [s for _, s in sorted(zip(self.scores, self.items, strict=True), key=lambda t: -t[0])]


@dataclass(frozen=True)
class MaxDiffResult:
    """MaxDiff log-strengths (mean zero) with percentile bootstrap intervals; see :func:`maxdiff`."""

    items: tuple
    strengths: tuple[float, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    n_judgments: int
    log_likelihood: float
    n_resamples: int
    n_resamples_without_mle: int
    gradient_norm: float

    def ranking(self) -> list:
        return [s for _, s in sorted(zip(self.strengths, self.items, strict=True), key=lambda t: -t[0])]


@dataclass(frozen=True)
class SplitHalfReliability:
    """Mean split-half correlation over ``n_splits`` random splits, before (``half``) and after
    (``corrected``) the Spearman–Brown correction, with the 2.5% and 97.5% quantiles of the
    corrected values across splits (their spread, not a confidence interval)."""

    half: float
    corrected: float
    corrected_low: float
    corrected_high: float
    correlation: str
    n_splits: int
    n_items: int


@dataclass(frozen=True)
class ImpliedPairAgreement:
    """Share of agreeing answers on the implied pairwise preferences: over every two judgments of
    the same tuple and every item pair on which both state a preference."""

    agreement: float
    n_comparisons: int
    n_tuples: int


def bws_tuples(
    n_items: int, *, k: int = 4, n_tuples: int | None = None, rng: np.random.Generator, n_sweeps: int = 50
) -> np.ndarray:
    r"""A best–worst design: ``n_tuples`` tuples of ``k`` distinct items out of ``n_items``.

    Parameters
    ----------
    n_items : int
        Items are numbered 0 … ``n_items`` − 1.
    k : int
        Items per tuple (4 in [2]_, [3]_).
    n_tuples : int, optional
        2 × ``n_items`` by default, the usual design size [3]_.
    rng : numpy.random.Generator
        The design is a function of the generator's seed.
    n_sweeps : int
        Passes of the pair-balancing search (below); 0 leaves the random design.

    Returns
    -------
    numpy.ndarray of int, shape (n_tuples, k)

    Notes
    -----
    The design starts as in the script of [3]_: random permutations of the items, concatenated and
    cut into consecutive tuples, so each item appears in ⌊nk/N⌋ or ⌈nk/N⌉ tuples (an item repeated
    within a tuple, which can happen where two permutations meet, is swapped with a slot of another
    tuple). Each sweep then visits every slot once and swaps it with a random slot of another tuple
    when that lowers :math:`\sum_{a<b} c_{ab}^2`, with :math:`c_{ab}` the number of tuples holding
    both :math:`a` and :math:`b`. Swaps keep every item's number of appearances, and since
    :math:`\sum c_{ab}` is fixed (:math:`n\binom{k}{2}`), the sum of squares is smallest when the
    pair counts are as equal as they can be: in the usual design (2N tuples of 4, each item meeting
    about 24 others) almost no pair meets twice while N > 25.
    """
    if isinstance(n_items, bool) or not isinstance(n_items, int | np.integer) or n_items < 2:
        raise ValueError(f"n_items must be a whole number of at least 2, got {n_items!r}")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 2 <= k <= n_items:
        raise ValueError(f"k must be a whole number between 2 and n_items ({n_items}), got {k!r}")
    n_tuples = 2 * n_items if n_tuples is None else n_tuples
    if isinstance(n_tuples, bool) or not isinstance(n_tuples, int | np.integer) or n_tuples < 1:
        raise ValueError(f"n_tuples must be a positive whole number, got {n_tuples!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (np.random.default_rng(seed))")
    slots = n_tuples * k
    stream = np.concatenate([rng.permutation(n_items) for _ in range(-(-slots // n_items))])[:slots]
    design = stream.reshape(n_tuples, k)
    _separate_repeats(design, rng)
    together = np.zeros((n_items, n_items), dtype=np.int64)
    for row in design:
        together[np.ix_(row, row)] += 1
    np.fill_diagonal(together, 0)
    n_pairs = n_items * (n_items - 1) // 2
    q, r = divmod(n_tuples * k * (k - 1) // 2, n_pairs)
    floor = r * (q + 1) ** 2 + (n_pairs - r) * q**2  # every pair count q or q + 1
    excess = int((together**2).sum()) // 2 - floor
    for _ in range(n_sweeps):
        if excess == 0:
            break
        for t, p in np.ndindex(n_tuples, k):
            u = int(rng.integers(n_tuples - 1))
            u += u >= t
            q = int(rng.integers(k))
            a, b = design[t, p], design[u, q]
            if b in design[t] or a in design[u]:
                continue
            rest_t = np.delete(design[t], p)
            rest_u = np.delete(design[u], q)
            # change of sum c^2 when a leaves tuple t for u and b the reverse: (c-1)^2 - c^2 = 1 - 2c
            delta = int(
                (1 - 2 * together[a, rest_t]).sum()
                + (1 - 2 * together[b, rest_u]).sum()
                + (1 + 2 * together[b, rest_t]).sum()
                + (1 + 2 * together[a, rest_u]).sum()
            )
            # sideways moves (delta 0) let the search cross plateaus
            if delta <= 0:
                together[a, rest_t] -= 1
                together[rest_t, a] -= 1
                together[b, rest_u] -= 1
                together[rest_u, b] -= 1
                together[b, rest_t] += 1
                together[rest_t, b] += 1
                together[a, rest_u] += 1
                together[rest_u, a] += 1
                design[t, p], design[u, q] = b, a
                excess += delta
    return design


def _separate_repeats(design: np.ndarray, rng: np.random.Generator) -> None:
    """Swap each item repeated within a tuple with a slot of another tuple that takes it without
    a repeat, in place."""
    n_tuples, k = design.shape
    for t in range(n_tuples):
        for p in range(k):
            a = design[t, p]
            if (design[t] == a).sum() == 1:
                continue
            for u in rng.permutation(n_tuples):
                q = next((q for q in range(k) if design[u, q] not in design[t] and a not in design[u]), None)
                if u != t and q is not None:
                    design[t, p], design[u, q] = design[u, q], a
                    break


def _check_judgments(tuples, best, worst):
    tuples = np.asarray(tuples)
    if tuples.ndim != 2 or tuples.shape[1] < 2:
        raise ValueError(f"tuples must be 2-D with at least two items a row, got shape {tuples.shape}")
    best, worst = np.asarray(best), np.asarray(worst)
    if not len(tuples) == len(best) == len(worst):
        raise ValueError(
            f"tuples, best and worst must have one element per judgment; got lengths "
            f"{len(tuples)}, {len(best)}, {len(worst)}"
        )
    n, k = tuples.shape
    labels, inverse = np.unique(np.concatenate([tuples.ravel(), best, worst]), return_inverse=True)
    items = inverse[: n * k].reshape(n, k)
    b, w = inverse[n * k : n * k + n], inverse[n * k + n :]
    ordered = np.sort(items, axis=1)
    if (ordered[:, 1:] == ordered[:, :-1]).any():
        raise ValueError("an item appears twice in one tuple")
    best_pos = items == b[:, None]
    worst_pos = items == w[:, None]
    bad = np.flatnonzero(~best_pos.any(axis=1) | ~worst_pos.any(axis=1) | (b == w))
    if len(bad):
        raise ValueError(f"judgment {int(bad[0])}: best and worst must be two different items of its tuple")
    return labels, items, best_pos.argmax(axis=1), worst_pos.argmax(axis=1)


def _count(n_items, items, best_pos, worst_pos, weights=None):
    rows = np.arange(len(items))
    w = np.ones(len(items)) if weights is None else weights
    best = np.bincount(items[rows, best_pos], weights=w, minlength=n_items)
    worst = np.bincount(items[rows, worst_pos], weights=w, minlength=n_items)
    seen = np.bincount(items.ravel(), weights=np.repeat(w, items.shape[1]), minlength=n_items)
    return best, worst, seen


def bws_scores(tuples, best, worst) -> BwsScores:
    """Counting scores of best–worst judgments: (times best − times worst) / times shown [3]_.

    Parameters
    ----------
    tuples : array_like, shape (n_judgments, k)
        The items shown in each judgment.
    best, worst : array_like, shape (n_judgments,)
        The item picked as best and the one picked as worst.

    Examples
    --------
    >>> s = bws_scores([["a", "b", "c"], ["a", "b", "c"]], ["a", "b"], ["c", "c"])
    >>> dict(zip(s.items, s.scores))
    {'a': 0.5, 'b': 0.5, 'c': -1.0}
    """
    labels, items, best_pos, worst_pos = _check_judgments(tuples, best, worst)
    b, w, seen = _count(len(labels), items, best_pos, worst_pos)
    return BwsScores(
        items=tuple(plain(x) for x in labels),
        scores=tuple(float(v) for v in (b - w) / seen),
        best=tuple(int(v) for v in b),
        worst=tuple(int(v) for v in w),
        appearances=tuple(int(v) for v in seen),
    )


def _implied_beats(n_items, items, best_pos, worst_pos, weights):
    """(B, N, N) tables: how often row item beat column item in the implied pairwise preferences
    (best over every other item of its tuple, every other item over worst) under weights (B, n)."""
    n, k = items.shape
    rows = np.arange(n)
    b, w = items[rows, best_pos], items[rows, worst_pos]
    cells = []
    for p in range(k):
        other = items[:, p]
        keep = other != b
        cells.append((b * n_items + other, keep))
        keep = (other != w) & (other != b)
        cells.append((other * n_items + w, keep))
    index = np.concatenate([c for c, _ in cells])
    mask = np.concatenate([m for _, m in cells])
    weight_index = np.tile(rows, 2 * k)[mask]
    index = index[mask]
    out = np.zeros((weights.shape[0], n_items * n_items))
    for r in range(weights.shape[0]):
        out[r] = np.bincount(index, weights=weights[r, weight_index], minlength=n_items * n_items)
    return out.reshape(-1, n_items, n_items)


def _maxdiff_fit(n_items, items, best_pos, worst_pos, weights, max_iter, tol, ridge=0.0):
    """Newton–Raphson on the MaxDiff log-likelihood under judgment weights, penalised by ridge / 2 × |theta|^2
    (a normal prior that keeps early fits finite); (theta, loglik, grad)."""
    n, k = items.shape
    ordered = np.array(list(permutations(range(k), 2)))  # (m, 2): candidate (best, worst) positions
    choice = np.flatnonzero(
        (ordered[:, 0][None, :] == best_pos[:, None]) & (ordered[:, 1][None, :] == worst_pos[:, None])
    )
    choice = choice - np.arange(n) * len(ordered)
    # v[m, :] is the position-space vector e_best - e_worst of candidate m
    v = np.zeros((len(ordered), k))
    v[np.arange(len(ordered)), ordered[:, 0]] += 1.0
    v[np.arange(len(ordered)), ordered[:, 1]] -= 1.0
    theta = np.zeros(n_items)
    centre = np.full((n_items, n_items), 1.0 / n_items)
    observed = v[choice]  # (n, k)
    for _ in range(max_iter):
        eta = theta[items] @ v.T  # (n, m)
        eta -= eta.max(axis=1, keepdims=True)
        p = np.exp(eta)
        p /= p.sum(axis=1, keepdims=True)
        mean = p @ v  # (n, k)
        grad = np.bincount(items.ravel(), weights=(weights[:, None] * (observed - mean)).ravel(), minlength=n_items)
        # per judgment information in position space: sum_m p_m v_m v_m^T - mean mean^T
        info = np.einsum("nm,mi,mj->nij", p, v, v) - mean[:, :, None] * mean[:, None, :]
        info *= weights[:, None, None]
        hessian = np.zeros((n_items, n_items))
        rr, cc = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
        np.add.at(hessian, (items[:, rr], items[:, cc]), info)
        grad -= ridge * theta
        step = np.linalg.solve(hessian + centre + ridge * np.eye(n_items), grad)
        theta = theta + step
        theta -= theta.mean()
        if np.abs(step).max() < tol:
            break
    eta = theta[items] @ v.T
    loglik = float((weights * (eta[np.arange(n), choice] - _logsumexp(eta))).sum())
    return theta, loglik, float(np.abs(grad).max())


def _logsumexp(eta):
    top = eta.max(axis=1)
    return top + np.log(np.exp(eta - top[:, None]).sum(axis=1))


def maxdiff(
    tuples, best, worst, *, units=None, confidence=0.95, n_resamples=1000, rng=None, max_iter=100, tol=1e-10
) -> MaxDiffResult:
    r"""MaxDiff (best–worst multinomial logit) log-strengths of the items with bootstrap intervals.

    Parameters
    ----------
    tuples, best, worst
        As in :func:`bws_scores`.
    units : array_like, shape (n_judgments,), optional
        Bootstrap clusters (e.g. tuples or raters); each judgment is its own unit by default.
    confidence, n_resamples, rng
        Percentile intervals from ``n_resamples`` bootstrap samples drawn with ``rng``.
    max_iter, tol
        Newton iterations and step tolerance.

    Raises
    ------
    InsufficientDataError
        No finite maximum-likelihood estimate (below).

    Notes
    -----
    The maxdiff model of [4]_ (also [1]_, ch. 1): in a tuple :math:`S` the probability that
    :math:`i` is picked best and :math:`j` worst is

    .. math:: P(i, j \mid S) = \frac{e^{\theta_i - \theta_j}}
              {\sum_{a \ne b \in S} e^{\theta_a - \theta_b}},

    a conditional logit in :math:`\theta` (identified by :math:`\sum\theta = 0`) whose
    log-likelihood is concave; it is maximised by Newton–Raphson. A finite maximum exists exactly
    when the implied-preference graph (best beats every other item of its tuple, every other item
    beats worst) is strongly connected: a non-constant direction :math:`d` along which the
    likelihood never falls must put every best item at the top of its tuple and every worst at
    the bottom, so it is constant on strongly connected sets, and conversely a set no outside item
    ever beats gives such a direction (the same argument as for Bradley–Terry, Hunter 2004).
    Bootstrap samples without a finite estimate are counted in ``n_resamples_without_mle`` and
    left out of the intervals.

    Examples
    --------
    >>> t = [["a", "b", "c"]] * 4
    >>> r = maxdiff(t, ["a", "a", "b", "a"], ["c", "b", "c", "c"], n_resamples=0)
    >>> r.ranking()
    ['a', 'b', 'c']
    """
    confidence = check_confidence(confidence)
    n_resamples = check_resampling(n_resamples, rng)
    labels, items, best_pos, worst_pos = _check_judgments(tuples, best, worst)
    n_items = len(labels)
    ones = np.ones((1, len(items)))
    if not _has_mle(_implied_beats(n_items, items, best_pos, worst_pos, ones))[0]:
        raise InsufficientDataError(
            "no finite MaxDiff estimate: some item was always picked best (or always worst) "
            "against the others, or the items split into groups that never met"
        )
    theta, loglik, gradient_norm = _maxdiff_fit(n_items, items, best_pos, worst_pos, ones[0], max_iter, tol)
    low = high = np.full(n_items, np.nan)
    failed = 0
    if n_resamples:
        unit_codes = np.arange(len(items)) if units is None else codes(units, "units")[1]
        if len(unit_codes) != len(items):
            raise ValueError(f"units must have one element per judgment; got {len(unit_codes)} for {len(items)}")
        samples = []
        for block in bootstrap_counts(int(unit_codes.max()) + 1, n_resamples, rng):
            weights = block[:, unit_codes]
            ok = _has_mle(_implied_beats(n_items, items, best_pos, worst_pos, weights))
            for w, good in zip(weights, ok, strict=True):
                samples.append(
                    _maxdiff_fit(n_items, items, best_pos, worst_pos, w, max_iter, tol)[0]
                    if good
                    else np.full(n_items, np.nan)
                )
            failed += int((~ok).sum())
        low, high = percentile_interval(np.array(samples), confidence)
    return MaxDiffResult(
        items=tuple(plain(x) for x in labels),
        strengths=tuple(float(v) for v in theta),
        ci_low=tuple(float(v) for v in low),
        ci_high=tuple(float(v) for v in high),
        n_judgments=len(items),
        log_likelihood=loglik,
        n_resamples=n_resamples,
        n_resamples_without_mle=failed,
        gradient_norm=gradient_norm,
    )


CORRELATIONS = ("spearman", "pearson")


def split_half_reliability(
    tuples, best, worst, *, units, n_splits=100, correlation="spearman", rng
) -> SplitHalfReliability:
    r"""Split-half reliability of counting scores, as reported in [2]_ and [3]_.

    Parameters
    ----------
    tuples, best, worst
        As in :func:`bws_scores`.
    units : array_like, shape (n_judgments,)
        The tuple each judgment answers (its id in the design): the judgments of every tuple are
        split between the two halves.
    n_splits : int
        Random splits averaged (100 in [2]_).
    correlation : {"spearman", "pearson"}
    rng : numpy.random.Generator

    Raises
    ------
    InsufficientDataError
        Fewer than three items scored in both halves of some split, or a half whose scores are
        all equal.

    Notes
    -----
    Following [2]_ (§3) and [3]_: the annotations of each tuple are split at random into two
    halves (an odd one out goes to either half with equal chance), counting scores are computed
    from each half, and the two sets of scores are correlated over the items scored in both.
    This is repeated ``n_splits`` times and the correlations averaged. Each half holds half the
    annotations, so the correlation understates the reliability of the whole; the Spearman–Brown
    formula :math:`2r/(1+r)` (Spearman 1910; Brown 1910) gives the reliability at full length,
    applied to each split's correlation before averaging.
    """
    if correlation not in CORRELATIONS:
        raise ValueError(f"correlation must be one of {', '.join(map(repr, CORRELATIONS))}; got {correlation!r}")
    if isinstance(n_splits, bool) or not isinstance(n_splits, int | np.integer) or n_splits < 1:
        raise ValueError(f"n_splits must be a positive whole number, got {n_splits!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (np.random.default_rng(seed))")
    labels, items, best_pos, worst_pos = _check_judgments(tuples, best, worst)
    _, unit_codes = codes(units, "units")
    if len(unit_codes) != len(items):
        raise ValueError(f"units must have one element per judgment; got {len(unit_codes)} for {len(items)}")
    order = np.argsort(unit_codes, kind="stable")
    starts = np.searchsorted(unit_codes[order], unit_codes[order])
    rank_in_unit = np.arange(len(order)) - starts
    size = np.bincount(unit_codes)[unit_codes[order]]
    halves, corrected = [], []
    for _ in range(n_splits):
        # a random order within each tuple: the first half of it goes to half one
        key = rng.random(len(order))
        shuffled = order[np.lexsort((key, unit_codes[order]))]
        odd_first = rng.random(unit_codes.max() + 1) < 0.5
        cut = (size + odd_first[unit_codes[order]] * (size % 2)) // 2
        in_first = np.zeros(len(items), dtype=bool)
        in_first[shuffled] = rank_in_unit < cut
        scores = []
        for part in (in_first, ~in_first):
            b, w, seen = _count(len(labels), items[part], best_pos[part], worst_pos[part])
            with np.errstate(invalid="ignore", divide="ignore"):
                scores.append((b - w) / seen)
        both = ~np.isnan(scores[0]) & ~np.isnan(scores[1])
        x, y = scores[0][both], scores[1][both]
        if both.sum() < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
            raise InsufficientDataError(
                "split-half reliability needs at least three items scored in both halves with "
                "scores that vary; tuples need at least two judgments each"
            )
        r = stats.spearmanr(x, y).statistic if correlation == "spearman" else stats.pearsonr(x, y).statistic
        halves.append(r)
        corrected.append(2 * r / (1 + r))
    low, high = np.quantile(corrected, [0.025, 0.975])
    return SplitHalfReliability(
        half=float(np.mean(halves)),
        corrected=float(np.mean(corrected)),
        corrected_low=float(low),
        corrected_high=float(high),
        correlation=correlation,
        n_splits=int(n_splits),
        n_items=len(labels),
    )


def implied_pair_agreement(tuples, best, worst, *, units) -> ImpliedPairAgreement:
    """Agreement on the pairwise preferences implied by best–worst answers.

    Notes
    -----
    A best–worst answer on a tuple of k items states 2k − 3 pairwise preferences: best over each
    other item and each remaining item over worst ([1]_, ch. 1); the pairs between two middle
    items are unstated. For every tuple (``units``) and every two judgments of it, each item pair
    on which both state a preference counts once, agreeing when both prefer the same item. The
    result is that share: raw agreement, without a chance correction.

    Examples
    --------
    Two raters agree that a beats c and b beats c, disagree on a against b:

    >>> r = implied_pair_agreement([["a", "b", "c"]] * 2, ["a", "b"], ["c", "c"], units=[1, 1])
    >>> (r.agreement, r.n_comparisons)
    (0.6666666666666666, 3)
    """
    labels, items, best_pos, worst_pos = _check_judgments(tuples, best, worst)
    _, unit_codes = codes(units, "units")
    if len(unit_codes) != len(items):
        raise ValueError(f"units must have one element per judgment; got {len(unit_codes)} for {len(items)}")
    n_items = len(labels)
    n, k = items.shape
    # per judgment and item pair (lower code first): +1 lower preferred, -1 higher preferred, 0 unstated
    rows = np.arange(n)
    b, w = items[rows, best_pos], items[rows, worst_pos]
    key_parts, value_parts = [], []
    for p in range(k):
        for q in range(p + 1, k):
            x, y = items[:, p], items[:, q]
            x_over_y = (x == b) | (y == w)
            y_over_x = (y == b) | (x == w)
            stated = x_over_y | y_over_x
            lower_first = np.where(x < y, 1, -1)
            pref = np.where(x_over_y, 1, -1) * lower_first
            lo, hi = np.minimum(x, y), np.maximum(x, y)
            key_parts.append((unit_codes * n_items + lo) * n_items + hi)
            value_parts.append(np.where(stated, pref, 0))
    keys = np.concatenate(key_parts)
    values = np.concatenate(value_parts)
    stated = values != 0
    keys, values = keys[stated], values[stated]
    _, cell = np.unique(keys, return_inverse=True)
    up = np.bincount(cell, weights=values > 0)
    down = np.bincount(cell, weights=values < 0)
    pairs = up * (up - 1) / 2 + down * (down - 1) / 2 + up * down
    agreeing = up * (up - 1) / 2 + down * (down - 1) / 2
    total = float(pairs.sum())
    if total == 0:
        raise InsufficientDataError("implied-pair agreement needs tuples judged at least twice")
    return ImpliedPairAgreement(
        agreement=float(agreeing.sum() / total),
        n_comparisons=int(total),
        n_tuples=int(len(np.unique(unit_codes))),
    )
