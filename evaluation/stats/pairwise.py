"""Pairwise (A/B with ties) results: win/tie/lose tables, sign tests, majority votes, win rates and
Bradley–Terry strengths (ties as half-wins, or Davidson's tie model) with bootstrap intervals.

Outcomes are coded for the *first* system of each comparison: 0 it loses, 1 tie, 2 it wins.
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
    codes,
    percentile_interval,
    plain,
)
from .errors import InsufficientDataError

LOSES, TIES, WINS = 0.0, 1.0, 2.0
TIE_MODELS = ("half", "davidson")


@dataclass(frozen=True)
class PairCounts:
    """Outcomes between ``system_a`` and ``system_b`` (sorted names), counted for ``system_a``."""

    system_a: object
    system_b: object
    wins: int
    ties: int
    losses: int
    sign_test_p: float

    @property
    def n(self) -> int:
        return self.wins + self.ties + self.losses

    @property
    def win_rate(self) -> float:
        """(wins + ties / 2) / n for ``system_a``."""
        return (self.wins + self.ties / 2) / self.n if self.n else float("nan")


@dataclass(frozen=True)
class WinRate:
    system: object
    n: int
    wins: int
    ties: int
    losses: int

    @property
    def win_rate(self) -> float:
        """(wins + ties / 2) / n: ties count as half a win."""
        return (self.wins + self.ties / 2) / self.n if self.n else float("nan")


@dataclass(frozen=True)
class BradleyTerryResult:
    """Log-strengths :math:`\\theta` (mean zero) of each system with percentile intervals.

    ``tie_parameter`` is Davidson's :math:`\\nu` (None for ties as half-wins);
    ``n_resamples_without_mle`` counts bootstrap samples whose comparison graph had no finite
    maximum-likelihood estimate (a system that never won, or a split league); they are left out
    of the intervals. ``gradient_norm`` is the largest absolute component of the log-likelihood's
    gradient at the estimate: how far the fit is from the maximum (about 1e-10 or less).
    """

    systems: tuple
    strengths: tuple[float, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    ties: str
    tie_parameter: float | None
    n_comparisons: int
    log_likelihood: float
    n_resamples: int
    n_resamples_without_mle: int
    gradient_norm: float

    def ranking(self) -> list:
        """Systems from strongest to weakest."""
        return [s for _, s in sorted(zip(self.strengths, self.systems, strict=True), key=lambda t: -t[0])]


def _check_comparisons(first, second, outcome):
    y = as_float_array(outcome, "outcome")
    first, second = np.asarray(first), np.asarray(second)
    if not len(first) == len(second) == len(y):
        raise ValueError(
            f"first, second and outcome must have one element per comparison; got lengths "
            f"{len(first)}, {len(second)}, {len(y)}"
        )
    if not np.isin(y, (LOSES, TIES, WINS)).all():
        raise ValueError("outcome must be 0 (first loses), 1 (tie) or 2 (first wins)")
    if (first == second).any():
        raise ValueError("a comparison must be between two different systems")
    labels, inverse = np.unique(np.concatenate([first, second]), return_inverse=True)
    return labels, inverse[: len(y)], inverse[len(y) :], y


def pairwise_counts(first, second, outcome) -> list[PairCounts]:
    r"""Win/tie/lose counts of every pair of systems, with a two-sided sign test.

    Parameters
    ----------
    first, second : array_like, shape (n_comparisons,)
        The two systems of each comparison.
    outcome : array_like, shape (n_comparisons,)
        0 when ``first`` loses, 1 for a tie, 2 when ``first`` wins.

    Returns
    -------
    list of PairCounts
        One per pair that met, ``system_a < system_b``, counts from ``system_a``'s side.

    Notes
    -----
    The sign test drops ties and tests :math:`H_0: P(\text{win}) = 1/2` with the exact binomial
    distribution [1]_ (``scipy.stats.binomtest``); its p-value is 1 when every comparison tied.

    References
    ----------
    .. [1] W. J. Dixon and A. M. Mood, "The Statistical Sign Test", *JASA* 41(236), 1946,
       https://doi.org/10.1080/01621459.1946.10501888.

    Examples
    --------
    >>> c = pairwise_counts(["a", "b", "a", "a"], ["b", "a", "b", "b"], [2, 2, 1, 2])[0]
    >>> (c.system_a, c.system_b, c.wins, c.ties, c.losses, round(c.win_rate, 3), c.sign_test_p)
    ('a', 'b', 2, 1, 1, 0.625, 1.0)
    """
    labels, i, j, y = _check_comparisons(first, second, outcome)
    # orient every comparison as (lower code, higher code), flipping the outcome when swapped
    swap = i > j
    a, b = np.where(swap, j, i), np.where(swap, i, j)
    y = np.where(swap, 2.0 - y, y)
    k = len(labels)
    out = []
    table = np.zeros((k, k, 3), dtype=int)
    np.add.at(table, (a, b, y.astype(int)), 1)
    for p in range(k):
        for q in range(p + 1, k):
            losses, ties, wins = (int(v) for v in table[p, q])
            if wins + ties + losses == 0:
                continue
            p_value = stats.binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0
            out.append(PairCounts(plain(labels[p]), plain(labels[q]), wins, ties, losses, float(p_value)))
    return out


def win_rates(first, second, outcome) -> list[WinRate]:
    """Each system's wins, ties and losses over all its comparisons; ties count half in ``win_rate``.

    Examples
    --------
    PandaLM's README counts a tie as half a win in the same way.

    >>> [(w.system, w.win_rate) for w in win_rates(["a", "a", "b"], ["b", "c", "c"], [2, 1, 0])]
    [('a', 0.75), ('b', 0.0), ('c', 0.75)]
    """
    labels, i, j, y = _check_comparisons(first, second, outcome)
    k = len(labels)
    wins = np.bincount(i, weights=y == WINS, minlength=k) + np.bincount(j, weights=y == LOSES, minlength=k)
    losses = np.bincount(i, weights=y == LOSES, minlength=k) + np.bincount(j, weights=y == WINS, minlength=k)
    ties = np.bincount(i, weights=y == TIES, minlength=k) + np.bincount(j, weights=y == TIES, minlength=k)
    return [
        WinRate(plain(labels[s]), int(wins[s] + ties[s] + losses[s]), int(wins[s]), int(ties[s]), int(losses[s]))
        for s in range(k)
    ]


def majority_outcomes(outcome, *, units) -> tuple[np.ndarray, np.ndarray]:
    """The most frequent outcome of each unit (its raters' majority vote).

    Parameters
    ----------
    outcome : array_like, shape (n_judgments,)
        0, 1 or 2 per judgment, all coded for the same first system of the unit.
    units : array_like, shape (n_judgments,)
        The unit (item) of each judgment.

    Returns
    -------
    (units, outcomes) : tuple of numpy.ndarray
        Sorted distinct units and each one's majority outcome; NaN where the most frequent outcomes
        are tied (e.g. one win, one tie, one loss), which callers report and leave out.

    Examples
    --------
    >>> majority_outcomes([2, 2, 1, 0, 1, 2], units=[1, 1, 1, 2, 2, 2])[1].tolist()
    [2.0, nan]
    """
    y = as_float_array(outcome, "outcome")
    labels, u = codes(units, "units")
    if len(u) != len(y):
        raise ValueError(f"outcome and units differ in length ({len(y)} vs {len(u)})")
    if not np.isin(y, (LOSES, TIES, WINS)).all():
        raise ValueError("outcome must be 0 (first loses), 1 (tie) or 2 (first wins)")
    votes = np.zeros((len(labels), 3))
    np.add.at(votes, (u, y.astype(int)), 1)
    top = votes.max(axis=1)
    unique_top = (votes == top[:, None]).sum(axis=1) == 1
    return labels, np.where(unique_top, votes.argmax(axis=1).astype(float), np.nan)


def _pair_tables(k: int, i: np.ndarray, j: np.ndarray, y: np.ndarray, weights: np.ndarray):
    """Wins and ties tables of shape (B, k, k) under comparison weights of shape (B, n)."""
    b = weights.shape[0]
    wins = np.zeros((b, k * k))
    ties = np.zeros((b, k * k))
    for mask, target, cells in (
        (y == WINS, wins, i * k + j),
        (y == LOSES, wins, j * k + i),
        (y == TIES, ties, np.minimum(i, j) * k + np.maximum(i, j)),
    ):
        if mask.any():
            onehot = np.zeros((mask.sum(), k * k))
            onehot[np.arange(mask.sum()), cells[mask]] = 1.0
            target += weights[:, mask] @ onehot
    win_tables, tie_tables = wins.reshape(b, k, k), ties.reshape(b, k, k)
    return win_tables, tie_tables + np.swapaxes(tie_tables, 1, 2)


def _has_mle(beats: np.ndarray) -> np.ndarray:
    """Whether the directed graph "i beat j at least once" is strongly connected, per table: the
    condition for a finite maximum-likelihood estimate (Zermelo 1929; Ford 1957, as in [2])."""
    b, k, _ = beats.shape
    reach = ((beats > 0) | np.eye(k, dtype=bool)).astype(float)
    for _ in range(int(np.ceil(np.log2(max(k, 2)))) + 1):
        reach = np.minimum(reach @ reach, 1.0)
    return np.asarray((reach > 0).all(axis=(1, 2)))


def _fit_half(wins: np.ndarray, ties: np.ndarray, max_iter: int, tol: float) -> np.ndarray:
    """Newton–Raphson on the Bradley–Terry log-likelihood with ties as half-wins, batched over
    tables; returns log-strengths (B, k) centred on zero."""
    w = wins + ties / 2.0
    n = w + np.swapaxes(w, 1, 2)
    b, k, _ = w.shape
    theta = np.zeros((b, k))
    total_wins = w.sum(axis=2)
    centre = np.full((k, k), 1.0 / k)
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(theta[:, None, :] - theta[:, :, None]))  # P(i beats j)
        grad = total_wins - (n * p).sum(axis=2)
        weight = n * p * (1.0 - p)
        laplacian = np.eye(k) * weight.sum(axis=2)[:, :, None] - weight
        step = np.linalg.solve(laplacian + centre, grad[:, :, None])[:, :, 0]
        theta = theta + step
        theta -= theta.mean(axis=1, keepdims=True)
        if np.abs(step).max() < tol:
            break
    return theta


def _davidson_negloglik(params, wins, ties):
    """Negative log-likelihood of Davidson's model [3] and its gradient; params = (theta, log nu)."""
    k = wins.shape[0]
    theta, log_nu = params[:k], params[k]
    nu = np.exp(log_nu)
    ti, tj = theta[:, None], theta[None, :]
    half = np.exp((ti + tj) / 2.0)
    denom = np.exp(ti) + np.exp(tj) + nu * half
    upper = np.triu(np.ones((k, k), dtype=bool), 1)
    n = wins + wins.T + ties
    loglik = (
        (wins * ti).sum()
        + (ties[upper] * (log_nu + (ti + tj)[upper] / 2.0)).sum()
        - (n[upper] * np.log(denom[upper])).sum()
    )
    # d log denom / d theta_i = (e^{theta_i} + nu half / 2) / denom
    share = (np.exp(ti) + nu * half / 2.0) / denom
    grad_theta = wins.sum(axis=1) + ties.sum(axis=1) / 2.0 - (n * share).sum(axis=1) + np.diag(n * share)
    grad_nu = ties[upper].sum() - (n[upper] * nu * half[upper] / denom[upper]).sum()
    return -loglik, -np.append(grad_theta, grad_nu)


def _davidson_hessian(params, wins, ties):
    """Hessian of the negative log-likelihood of Davidson's model [3] in (theta, log nu): per pair,
    n_ij times that of log D_ij, D = e^{theta_i} + e^{theta_j} + nu e^{(theta_i + theta_j)/2}."""
    k = wins.shape[0]
    theta, nu = params[:k], np.exp(params[k])
    i, j = np.triu_indices(k, 1)
    n = (wins + wins.T + ties)[i, j]
    a, b = np.exp(theta[i]), np.exp(theta[j])
    c = nu * np.exp((theta[i] + theta[j]) / 2.0)
    d = a + b + c
    grad = np.stack([(a + c / 2.0) / d, (b + c / 2.0) / d, c / d])  # d log D / d (theta_i, theta_j, log nu)
    second = np.array([[a + c / 4.0, c / 4.0, c / 2.0], [c / 4.0, b + c / 4.0, c / 2.0], [c / 2.0, c / 2.0, c]]) / d
    local = n * (second - grad[:, None] * grad[None, :])  # (3, 3, n_pairs)
    index = np.stack([i, j, np.full_like(i, k)])
    hessian = np.zeros((k + 1, k + 1))
    for r in range(3):
        for q in range(3):
            np.add.at(hessian, (index[r], index[q]), local[r, q])
    return hessian


def _fit_davidson(wins: np.ndarray, ties: np.ndarray, max_iter: int, tol: float) -> tuple[np.ndarray, float, float]:
    """Newton's method with backtracking on Davidson's log-likelihood, concave in (theta, log nu)
    (log D is a log-sum-exp of affine functions), until the step is below ``tol``; returns
    (theta centred on zero, nu, log-likelihood). Without ties nu = 0 and theta is the plain fit."""
    k = wins.shape[0]
    if not ties.any():
        theta = _fit_half(wins[None], ties[None], max_iter, tol)[0]
        return theta, 0.0, _half_loglik(theta, wins, ties)
    params = np.append(np.zeros(k), np.log(max(ties.sum(), 0.5) / max(wins.sum(), 1.0)))
    # theta is identified only up to a constant: the centring term makes the Newton system regular
    centre = np.zeros((k + 1, k + 1))
    centre[:k, :k] = 1.0 / k
    value, grad = _davidson_negloglik(params, wins, ties)
    for _ in range(max_iter):
        step = -np.linalg.solve(_davidson_hessian(params, wins, ties) + centre, grad)
        slope, t = float(grad @ step), 1.0
        # Armijo backtracking; near the optimum the decrease is below the rounding of the
        # log-likelihood itself, which must not stop the full Newton step
        rounding = 16.0 * np.finfo(float).eps * abs(value)
        while True:
            trial = params + t * step
            trial_value, trial_grad = _davidson_negloglik(trial, wins, ties)
            if trial_value <= value + 1e-4 * t * slope + rounding or t < 1e-10:
                break
            t /= 2.0
        params, value, grad = trial, trial_value, trial_grad
        params[:k] -= params[:k].mean()
        if np.abs(t * step).max() < tol:
            break
    return params[:k], float(np.exp(params[k])), float(-value)


def _half_gradient_norm(theta: np.ndarray, wins: np.ndarray, ties: np.ndarray) -> float:
    """Largest absolute component of the half-win log-likelihood's gradient (wins minus expected)."""
    w = wins + ties / 2.0
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    return float(np.abs(w.sum(axis=1) - ((w + w.T) * p).sum(axis=1)).max())


def _half_loglik(theta: np.ndarray, wins: np.ndarray, ties: np.ndarray) -> float:
    w = wins + ties / 2.0
    with np.errstate(divide="ignore"):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        return float((w * np.log(np.where(w > 0, p, 1.0))).sum())


def bradley_terry(
    first,
    second,
    outcome,
    *,
    ties="half",
    units=None,
    confidence=0.95,
    n_resamples=1000,
    rng=None,
    max_iter=100,
    tol=1e-10,
) -> BradleyTerryResult:
    r"""Bradley–Terry strengths of the systems from pairwise comparisons with ties.

    Parameters
    ----------
    first, second : array_like, shape (n_comparisons,)
        The two systems of each comparison.
    outcome : array_like, shape (n_comparisons,)
        0 when ``first`` loses, 1 for a tie, 2 when ``first`` wins.
    ties : {"half", "davidson"}
        ``"half"``: a tie counts as half a win for each side [1]_ (as Chatbot Arena does) and the
        plain Bradley–Terry likelihood is maximised. ``"davidson"``: Davidson's model [3]_ with a
        tie parameter :math:`\nu`.
    units : array_like, shape (n_comparisons,), optional
        Bootstrap clusters (e.g. items, so that all judgments of an item are drawn together);
        by default each comparison is its own unit, as in Chatbot Arena's leaderboard [4]_.
    confidence, n_resamples, rng
        Percentile intervals from ``n_resamples`` bootstrap samples drawn with ``rng``.
    max_iter, tol
        Newton iterations and step tolerance (both models).

    Returns
    -------
    BradleyTerryResult

    Raises
    ------
    InsufficientDataError
        Fewer than two systems, or no finite maximum-likelihood estimate: some system never won
        (or never lost) against the rest, so its strength runs off to infinity [2]_.
    ValueError
        Bad outcome codes, a system compared with itself, unknown ``ties``.

    Notes
    -----
    With log-strengths :math:`\theta_i` (identified by :math:`\sum_i \theta_i = 0`), Bradley–Terry
    [1]_ gives

    .. math:: P(i \succ j) = \frac{e^{\theta_i}}{e^{\theta_i} + e^{\theta_j}},

    and Davidson's extension [3]_, with :math:`\pi_i = e^{\theta_i}`,

    .. math:: P(i \succ j) = \frac{\pi_i}{\pi_i + \pi_j + \nu\sqrt{\pi_i\pi_j}}, \quad
              P(i = j) = \frac{\nu\sqrt{\pi_i\pi_j}}{\pi_i + \pi_j + \nu\sqrt{\pi_i\pi_j}}.

    The half-win likelihood is maximised by Newton–Raphson (it is the logistic regression of
    [4]_ without regularisation; its minorisation–maximisation form is [2]_), Davidson's by
    Newton's method with backtracking on :math:`(\theta, \log\nu)`, in which it is concave, so
    both stop at the maximum (``gradient_norm`` reports how close). Without any tie Davidson's
    :math:`\nu` is 0 and the fit is the plain Bradley–Terry one.

    References
    ----------
    .. [1] R. A. Bradley and M. E. Terry, "Rank Analysis of Incomplete Block Designs: I",
       *Biometrika* 39(3/4), 1952, https://doi.org/10.2307/2334029.
    .. [2] D. R. Hunter, "MM Algorithms for Generalized Bradley–Terry Models", *Annals of
       Statistics* 32(1), 2004, https://doi.org/10.1214/aos/1079120141.
    .. [3] R. R. Davidson, "On Extending the Bradley–Terry Model to Accommodate Ties in Paired
       Comparison Experiments", *JASA* 65(329), 1970, https://doi.org/10.1080/01621459.1970.10481082.
    .. [4] W.-L. Chiang et al., "Chatbot Arena: An Open Platform for Evaluating LLMs by Human
       Preference", ICML 2024, https://arxiv.org/abs/2403.04132.

    Examples
    --------
    The 1987 American League East season (13 games per pair), as fitted in A. Agresti,
    *Categorical Data Analysis*, 2nd ed., 2002, Table 10.11: with Baltimore as the baseline the
    published strengths are Milwaukee 1.58, Detroit 1.44, Toronto 1.29, New York 1.25, Boston
    1.11, Cleveland 0.68.

    >>> import numpy as np
    >>> teams = ["Milwaukee", "Detroit", "Toronto", "New York", "Boston", "Cleveland", "Baltimore"]
    >>> won = [[0, 7, 9, 7, 7, 9, 11], [6, 0, 7, 5, 11, 9, 9], [4, 6, 0, 7, 7, 8, 12],
    ...        [6, 8, 6, 0, 6, 7, 10], [6, 2, 6, 7, 0, 7, 12], [4, 4, 5, 6, 6, 0, 6],
    ...        [2, 4, 1, 3, 1, 7, 0]]
    >>> first, second = zip(*[(teams[i], teams[j]) for i in range(7) for j in range(7)
    ...                       for _ in range(won[i][j])])
    >>> bt = bradley_terry(first, second, [2] * len(first), n_resamples=0)
    >>> base = bt.strengths[bt.systems.index("Baltimore")]
    >>> {s: round(v - base, 2) for s, v in zip(bt.systems, bt.strengths)}["Milwaukee"]
    1.58
    >>> [round(bt.strengths[bt.systems.index(t)] - base, 2) for t in teams]
    [1.58, 1.44, 1.29, 1.25, 1.11, 0.68, 0.0]
    """
    check_choice("ties", ties, TIE_MODELS)
    confidence = check_confidence(confidence)
    n_resamples = check_resampling(n_resamples, rng)
    labels, i, j, y = _check_comparisons(first, second, outcome)
    k = len(labels)
    if k < 2:
        raise InsufficientDataError("Bradley–Terry needs comparisons between at least two systems")
    wins, tie_table = _pair_tables(k, i, j, y, np.ones((1, len(y))))
    if not _has_mle(wins + tie_table / 2.0)[0]:
        raise InsufficientDataError(
            "no finite Bradley–Terry estimate: some system never won (or never lost) "
            "against the others, or the systems split into groups that never met"
        )
    if ties == "half":
        theta = _fit_half(wins, tie_table, max_iter, tol)[0]
        nu, loglik = None, _half_loglik(theta, wins[0], tie_table[0])
    else:
        theta, nu, loglik = _fit_davidson(wins[0], tie_table[0], max_iter, tol)
    if nu:
        gradient = _davidson_negloglik(np.append(theta, np.log(nu)), wins[0], tie_table[0])[1]
        gradient_norm = float(np.abs(gradient).max())
    else:
        gradient_norm = _half_gradient_norm(theta, wins[0], tie_table[0])

    low = high = np.full(k, np.nan)
    failed = 0
    if n_resamples:
        if units is None:
            unit_codes = np.arange(len(y))
        else:
            _, unit_codes = codes(units, "units")
            if len(unit_codes) != len(y):
                raise ValueError(f"units must have one element per comparison; got {len(unit_codes)} for {len(y)}")
        n_units = unit_codes.max() + 1
        samples = []
        for counts in bootstrap_counts(n_units, n_resamples, rng):
            bw, bt = _pair_tables(k, i, j, y, counts[:, unit_codes])
            ok = _has_mle(bw + bt / 2.0)
            block = np.full((len(counts), k), np.nan)
            if ok.any():
                if ties == "half":
                    block[ok] = _fit_half(bw[ok], bt[ok], max_iter, tol)
                else:
                    block[ok] = [_fit_davidson(w, t, max_iter, tol)[0] for w, t in zip(bw[ok], bt[ok], strict=True)]
            failed += int((~ok).sum())
            samples.append(block)
        low, high = percentile_interval(np.vstack(samples), confidence)

    return BradleyTerryResult(
        systems=tuple(plain(x) for x in labels),
        strengths=tuple(float(v) for v in theta),
        ci_low=tuple(float(v) for v in low),
        ci_high=tuple(float(v) for v in high),
        ties=ties,
        tie_parameter=nu,
        n_comparisons=len(y),
        log_likelihood=loglik,
        n_resamples=n_resamples,
        n_resamples_without_mle=failed,
        gradient_norm=gradient_norm,
    )
