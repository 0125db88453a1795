r"""Adaptive allocation of best–worst tuples with MaxDiff estimates that stay unbiased: the tuple analogue of
:mod:`.adaptive_pairs`, with the same targets, floors and weightings.

After a cold start on the reference design :math:`q` (uniform over a set of candidate tuples, e.g. the tuples of
the balanced design of :func:`.bws_tuples`), the next tuple is drawn with probabilities :math:`\pi_t` that favour
the tuples whose answers most shrink the variance of the ranking's contrasts; every judgment keeps the
:math:`\pi_t(a_t)` it was drawn with, and the MaxDiff fit weights it by :math:`q(a_t)/\pi_t(a_t)`
(inverse-probability weighting, [1]_ §5, [2]_), its square root ([3]_) or not at all, as in
:mod:`.adaptive_pairs` (whose module notes explain what each weighting estimates).

Items are integer codes 0 … n − 1 in the allocation; the fit takes any labels, as :func:`.maxdiff` does.

References
----------
.. [1] W.-L. Chiang et al., "Chatbot Arena: An Open Platform for Evaluating LLMs by Human
   Preference", ICML 2024, https://arxiv.org/abs/2403.04132.
.. [2] T. Zrnic and E. J. Candès, "Active Statistical Inference", ICML 2024,
   https://arxiv.org/abs/2403.03208.
.. [3] K. W. Zhang, L. Janson and S. A. Murphy, "Statistical Inference with M-Estimators on
   Adaptively Collected Data", NeurIPS 2021, https://arxiv.org/abs/2104.14074.
.. [4] A. A. J. Marley and J. J. Louviere, "Some probabilistic models of best, worst, and
   best-worst choices", *Journal of Mathematical Psychology* 49(6), 2005,
   https://doi.org/10.1016/j.jmp.2005.05.003.
.. [5] Y. Yu, "Monotonic Convergence of a General Algorithm for Computing Optimal Designs",
   *Ann. Statist.* 38(3), 2010, https://doi.org/10.1214/09-AOS761.
"""

from dataclasses import dataclass
from itertools import permutations

import numpy as np
from scipy import special

from ._resampling import as_float_array, check_choice, check_confidence, plain
from .adaptive_pairs import (
    ALLOCATION_WEIGHTINGS,
    DEFAULT_FLOORS,
    DESIGN_ITERATIONS,
    TARGETS,
    WEIGHTINGS,
    WaldFit,
    _contrasts,
    _pseudo_inverse,
    _wald,
)
from .best_worst import _check_judgments, _implied_beats, _maxdiff_fit
from .errors import InsufficientDataError
from .pairwise import _has_mle

# the normal prior (precision per item) that keeps the allocation's early fits finite; about one judgment's worth
PRIOR_PRECISION = 0.5


@dataclass(frozen=True, kw_only=True)
class IpwMaxDiff(WaldFit):
    """MaxDiff log-strengths from weighted best–worst judgments (``WaldFit``); ``items`` are the labels in sorted
    order, which ``ranking`` indexes."""

    items: tuple
    weighting: str
    n_judgments: int


def _choices(k: int) -> np.ndarray:
    """(k(k − 1), k): the position-space vector e_best − e_worst of every (best, worst) answer to a k-tuple."""
    ordered = np.array(list(permutations(range(k), 2)))
    v = np.zeros((len(ordered), k))
    v[np.arange(len(ordered)), ordered[:, 0]] = 1.0
    v[np.arange(len(ordered)), ordered[:, 1]] = -1.0
    return v


def _position_information(theta: np.ndarray, tuples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per tuple, the answer's expected position vector and its covariance (the Fisher information of one answer
    in position space [4]_): shapes (m, k) and (m, k, k)."""
    v = _choices(tuples.shape[1])
    p = special.softmax(theta[tuples] @ v.T, axis=1)
    mean = p @ v
    return mean, np.einsum("nm,mi,mj->nij", p, v, v) - mean[:, :, None] * mean[:, None, :]


def _embed(n_items: int, tuples: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    """Sum of the (k, k) ``blocks`` placed at their tuples' items in an (n_items, n_items) matrix."""
    k = tuples.shape[1]
    rows, cols = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    out = np.zeros((n_items, n_items))
    np.add.at(out, (tuples[:, rows], tuples[:, cols]), blocks)
    return out


def _spread(contrasts: np.ndarray, h_inv: np.ndarray, tuples: np.ndarray, info: np.ndarray) -> np.ndarray:
    """Per tuple a, tr(C H⁻¹ I_a H⁻¹ Cᵀ): what one answer to a adds to the target's variance (up to weights)."""
    g = (contrasts @ h_inv)[:, tuples]  # (r, m, k)
    return np.einsum("rmi,mij,rmj->m", g, info, g)


def _codes(name: str, value, n_items: int) -> np.ndarray:
    array = np.asarray(value)
    if array.size and (not np.issubdtype(array.dtype, np.integer) or array.min() < 0 or array.max() >= n_items):
        raise ValueError(f"{name} must hold integer item codes in 0 … {n_items - 1}")
    return array.astype(int)


def tuple_allocation_probabilities(
    n_items,
    candidates,
    tuples,
    best,
    worst,
    probability,
    *,
    target="ranking",
    top_k=None,
    cold_start=None,
    floor=None,
    weighting="inverse_probability",
) -> np.ndarray:
    r"""The probabilities with which to draw the next tuple, one per row of ``candidates``.

    Parameters
    ----------
    n_items : int
    candidates : array_like of int, shape (n_candidates, k)
        The tuples to draw from (item codes); the reference design :math:`q` is uniform over them.
    tuples : array_like of int, shape (n_judgments, k)
        The tuples judged so far (any size k' ≥ 2, one size for all).
    best, worst : array_like of int, shape (n_judgments,)
        The item picked best and the one picked worst in each.
    probability : array_like, shape (n_judgments,)
        The probability each judged tuple was drawn with; the judgments' weights are :math:`(1/\pi)^\gamma`
        normalised (a constant :math:`q` does not change a weighted fit).
    target : {"ranking", "top_k"}
        Every difference between neighbours in the current ranking, or those among the first ``top_k`` + 1.
    cold_start : int, optional
        Judgments drawn from the reference design before adapting; one round of the candidates by default.
    floor : float, optional
        Share of the reference design mixed into every allocation, in (0, 1]: every probability stays at least
        ``floor`` × q. Defaults as for pairs (:data:`.DEFAULT_FLOORS`).
    weighting : {"inverse_probability", "none"}
        The estimator whose variance the allocation minimises.

    Returns
    -------
    numpy.ndarray, shape (n_candidates,), summing to 1

    Notes
    -----
    With :math:`\hat\theta` the weighted MaxDiff fit so far (a normal prior of precision
    :data:`PRIOR_PRECISION` keeps it finite early on) and :math:`I_a` the information of one answer to tuple
    :math:`a` [4]_, the reference design's information per judgment is :math:`H = \sum_a q_a I_a`. Drawing with
    :math:`\pi` and weighting by :math:`q/\pi`, the variance per judgment is the sandwich
    :math:`H^{-1}(\sum_a (q_a^2/\pi_a) I_a)H^{-1}`, so the summed variance of the target contrasts
    :math:`C\theta` is :math:`\sum_a (q_a^2/\pi_a)s_a^2` with :math:`s_a^2 = \operatorname{tr}(C H^{-1} I_a
    H^{-1} C^\top)`, smallest at :math:`\pi_a \propto q_a s_a` (Cauchy–Schwarz, as in Neyman allocation); the
    result is :math:`(1 - f)\pi + f q`. Unweighted (``"none"``) the criterion is A-optimality,
    :math:`\operatorname{tr}(C H_\pi^{-1} C^\top)` with :math:`H_\pi = \sum_a \pi_a I_a`, minimised over
    :math:`\pi = f q + (1 - f)\sigma` by the multiplicative algorithm with power 1/2 [5]_, as for pairs.
    """
    check_choice("target", target, TARGETS)
    check_choice("weighting", weighting, ALLOCATION_WEIGHTINGS)
    if isinstance(n_items, bool) or not isinstance(n_items, int | np.integer) or n_items < 2:
        raise ValueError(f"n_items must be a whole number of at least 2, got {n_items!r}")
    n_items = int(n_items)
    if target == "top_k" and (
        isinstance(top_k, bool) or not isinstance(top_k, int | np.integer) or not 1 <= top_k < n_items
    ):
        raise ValueError(f"top_k must be a whole number from 1 to {n_items - 1} when target is 'top_k'")
    floor = DEFAULT_FLOORS[weighting] if floor is None else floor
    if isinstance(floor, bool) or not isinstance(floor, int | float) or not 0 < floor <= 1:
        raise ValueError(f"floor must be a number in (0, 1], got {floor!r}")
    candidates = _codes("candidates", candidates, n_items)
    if candidates.ndim != 2 or candidates.shape[1] < 2 or not len(candidates):
        raise ValueError(f"candidates must be a non-empty (n_candidates, k ≥ 2) array, got shape {candidates.shape}")
    q = np.full(len(candidates), 1.0 / len(candidates))
    cold_start = len(candidates) if cold_start is None else cold_start
    if isinstance(cold_start, bool) or not isinstance(cold_start, int | np.integer) or cold_start < 0:
        raise ValueError(f"cold_start must be a non-negative whole number of judgments, got {cold_start!r}")
    tuples = _codes("tuples", tuples, n_items)
    best, worst = _codes("best", best, n_items), _codes("worst", worst, n_items)
    pi = as_float_array(probability, "probability")
    if not len(tuples) == len(best) == len(worst) == len(pi):
        raise ValueError("tuples, best, worst and probability must have one element per judgment")
    if np.isnan(pi).any() or (pi <= 0).any() or (pi > 1).any():
        raise ValueError("probability must be the sampling probability of each judged tuple, in (0, 1]")
    if len(tuples) < cold_start:
        return q
    best_pos, worst_pos = (tuples == best[:, None]).argmax(axis=1), (tuples == worst[:, None]).argmax(axis=1)
    weights = (1.0 / pi) ** WEIGHTINGS[weighting]
    # rescaled to the number of judgments so that the prior stays weak
    weights *= len(weights) / weights.sum()
    theta = _maxdiff_fit(n_items, tuples, best_pos, worst_pos, weights, 100, 1e-8, ridge=PRIOR_PRECISION)[0]
    _, info = _position_information(theta, candidates)
    contrasts = _contrasts(theta, target, top_k)
    if weighting == "none":
        sigma = q.copy()
        for _ in range(DESIGN_ITERATIONS):
            design = floor * q + (1.0 - floor) * sigma
            h_inv = _pseudo_inverse(_embed(n_items, candidates, design[:, None, None] * info))
            sigma = sigma * np.sqrt(np.clip(_spread(contrasts, h_inv, candidates, info), 0.0, None))
            sigma /= sigma.sum()
        return floor * q + (1.0 - floor) * sigma
    h_inv = _pseudo_inverse(_embed(n_items, candidates, q[:, None, None] * info))
    s = np.sqrt(np.clip(_spread(contrasts, h_inv, candidates, info), 0.0, None))
    optimal = q * s / (q * s).sum()
    return (1.0 - floor) * optimal + floor * q


def ipw_maxdiff(
    tuples, best, worst, probability, *, weighting="inverse_probability", confidence=0.95, max_iter=100, tol=1e-10
) -> IpwMaxDiff:
    r"""MaxDiff (best–worst multinomial logit) fitted with weights :math:`w_t = (q/\pi_t)^\gamma` (``weighting``:
    :math:`\gamma` = 1, 1/2 or 0, :data:`.WEIGHTINGS`), with sandwich standard errors and Wald intervals.

    Parameters
    ----------
    tuples, best, worst
        As in :func:`.maxdiff` (any labels).
    probability : array_like, shape (n_judgments,)
        The probability each judged tuple was drawn with, in (0, 1]. The reference design :math:`q` is uniform
        over a fixed set of candidates, a constant that changes neither the fit nor its sandwich.
    weighting : {"inverse_probability", "stabilised", "none"}
    confidence : float

    Raises
    ------
    InsufficientDataError
        No finite estimate (the implied-preference graph is not strongly connected, as in :func:`.maxdiff`).

    Notes
    -----
    Under the MaxDiff model [4]_ each judgment's score :math:`E_t(o_t - \mu_t(\theta))` (the answer's position
    vector minus its expectation, mapped to items) has mean zero given the past and the tuple drawn, so the
    weighted estimating equation :math:`\sum_t w_t E_t(o_t - \mu_t) = 0` is unbiased whatever the allocation
    ([1]_ §5, [2]_, [3]_); with :math:`w = q/\pi` it estimates the reference design's fit even when the model is
    wrong. The variance is the sandwich :math:`\hat H^{+}\hat M\hat H^{+}` with
    :math:`\hat H = \sum_t w_t E_t I_t E_t^\top` and :math:`\hat M = \sum_t w_t^2 u_t u_t^\top`
    (:math:`u_t` the score), :math:`^{+}` the inverse on the sum-zero subspace.

    Examples
    --------
    With equal probabilities the fit is :func:`.maxdiff`'s (the weights are constant):

    >>> t = [["a", "b", "c"]] * 4
    >>> r = ipw_maxdiff(t, ["a", "a", "b", "a"], ["c", "b", "c", "c"], [0.25] * 4)
    >>> [r.items[i] for i in r.ranking]
    ['a', 'b', 'c']
    """
    confidence = check_confidence(confidence)
    check_choice("weighting", weighting, tuple(WEIGHTINGS))
    labels, items, best_pos, worst_pos = _check_judgments(tuples, best, worst)
    pi = as_float_array(probability, "probability")
    if pi.shape != (len(items),):
        raise ValueError(f"probability must have one element per judgment; got {pi.shape[0]} for {len(items)}")
    if np.isnan(pi).any() or (pi <= 0).any() or (pi > 1).any():
        raise ValueError("probability must be the sampling probability of each judged tuple, in (0, 1]")
    n_items = len(labels)
    weights = (1.0 / pi) ** WEIGHTINGS[weighting]
    if not _has_mle(_implied_beats(n_items, items, best_pos, worst_pos, weights[None]))[0]:
        raise InsufficientDataError(
            "no finite MaxDiff estimate: some item was always picked best (or always worst) "
            "against the others, or the items split into groups that never met"
        )
    theta = _maxdiff_fit(n_items, items, best_pos, worst_pos, weights, max_iter, tol)[0]
    mean, info = _position_information(theta, items)
    rows = np.arange(len(items))
    answer = np.zeros_like(mean)
    answer[rows, best_pos] += 1.0
    answer[rows, worst_pos] -= 1.0
    scores = np.zeros((len(items), n_items))
    np.add.at(scores, (rows[:, None], items), weights[:, None] * (answer - mean))
    bread_inv = _pseudo_inverse(_embed(n_items, items, weights[:, None, None] * info))
    return IpwMaxDiff(
        items=tuple(plain(x) for x in labels),
        **_wald(theta, bread_inv @ (scores.T @ scores) @ bread_inv, confidence),
        weighting=weighting,
        n_judgments=len(items),
    )
