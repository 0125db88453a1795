r"""Adaptive allocation of pairwise comparisons with estimates that stay unbiased.

After a cold start on the reference design :math:`q` (uniform over the pairs of systems unless a
lead sets another), the next pair is drawn with probabilities :math:`\pi_t` that favour the
comparisons which most shrink the variance of the ranking's contrasts; every judgment keeps the
:math:`\pi_t(a_t)` it was drawn with, and the estimates weight it by :math:`q(a_t)/\pi_t(a_t)`
(inverse-probability weighting), so that they estimate what the reference design would, whatever
the allocation did (Chiang et al. 2024, §5; Zrnic and Candès 2024).

Outcomes are coded as in :mod:`.pairwise`: 0 the first system loses, 1 tie, 2 it wins; ties count
as half a win. Systems are integer codes 0 … k − 1; pairs are the ``itertools.combinations`` order.

References
----------
.. [1] W.-L. Chiang et al., "Chatbot Arena: An Open Platform for Evaluating LLMs by Human
   Preference", ICML 2024, https://arxiv.org/abs/2403.04132 (§5: active sampling, estimators
   weighted by the inverse sampling probability).
.. [2] T. Zrnic and E. J. Candès, "Active Statistical Inference", ICML 2024,
   https://arxiv.org/abs/2403.03208.
.. [3] D. G. Horvitz and D. J. Thompson, "A Generalization of Sampling Without Replacement from a
   Finite Universe", *JASA* 47(260), 1952, https://doi.org/10.1080/01621459.1952.10483446.
.. [4] P. Hall and C. C. Heyde, *Martingale Limit Theory and Its Application*, Academic Press,
   1980 (the central limit theorem behind the sandwich intervals under adaptive sampling).
.. [5] D. Firth, "Bias Reduction of Maximum Likelihood Estimates", *Biometrika* 80(1), 1993,
   https://doi.org/10.1093/biomet/80.1.27.
.. [6] I. Kosmidis and N. Lunardon, "Empirical Bias-Reducing Adjustments to Estimating Functions",
   *JRSS B* 86(1), 2024, https://doi.org/10.1093/jrsssb/qkad083 (the adjustment for an estimating
   function that is not a likelihood score, as the weighted one here is not).
.. [7] P. Rilstone, V. K. Srivastava and A. Ullah, "The Second-Order Bias and Mean Squared Error
   of Nonlinear Estimators", *J. Econometrics* 75(2), 1996,
   https://doi.org/10.1016/0304-4076(95)01770-4.
.. [8] K. W. Zhang, L. Janson and S. A. Murphy, "Statistical Inference with M-Estimators on
   Adaptively Collected Data", NeurIPS 2021, https://arxiv.org/abs/2104.14074 (square-root
   importance weights that stabilise the variance of the weighted score).
.. [9] V. Hadad, D. A. Hirshberg, R. Zhan, S. Wager and S. Athey, "Confidence Intervals for
   Policy Evaluation in Adaptive Experiments", *PNAS* 118(15), 2021,
   https://doi.org/10.1073/pnas.2014602118.
.. [10] T. L. Lai and C. Z. Wei, "Least Squares Estimates in Stochastic Regression Models with
   Applications to Identification and Control of Dynamic Systems", *Ann. Statist.* 10(1), 1982,
   https://doi.org/10.1214/aos/1176345690 (asymptotic normality of the unweighted fit when the
   design's normalised information converges to a fixed matrix).
.. [11] Y. Yu, "Monotonic Convergence of a General Algorithm for Computing Optimal Designs",
   *Ann. Statist.* 38(3), 2010, https://doi.org/10.1214/09-AOS761 (the multiplicative algorithm
   with power 1/2 for A-optimality).

Which weighting to report (``weighting``)
-----------------------------------------
Under the Bradley–Terry model each judgment's score :math:`(y_t - p_{a_t}(\theta))x_{a_t}` has
mean zero given the past and the pair drawn, so any weights fixed before the judgment is drawn give
an unbiased estimating equation (a martingale difference sum). They differ in what they estimate
when the model is wrong, and in variance:

- ``"inverse_probability"`` (:math:`w = q/\pi`): the reference design's Bradley–Terry fit even if
  the model is wrong (design-robust); variance per judgment
  :math:`\sum_a (q_a^2/\pi_a)s_a^2`, which for a whole ranking of evenly spread systems can
  barely beat uniform allocation.
- ``"stabilised"`` (:math:`w = \sqrt{q/\pi}`, [8]_, [9]_): the weighted score's conditional
  variance is the reference design's whatever the allocation, which keeps the fit asymptotically
  normal even if the allocation does not settle.
- ``"none"``: the maximum-likelihood fit; efficient (its variance is the inverse of the
  information of the design actually run) and asymptotically normal because the allocation
  settles (it is a continuous function of a consistent estimate, kept at least ``floor`` × q,
  [10]_); it estimates the model's strengths, so it relies on the model holding.

Only with :math:`w = q/\pi` is the conditional mean of every term of the Jacobian,
:math:`E[w_t 1\{a_t = a\} \mid \text{past}] = q_a`, free of the past; with the other two the design
depends on the outcomes, which leaves an :math:`O(1/n)` outward bias that the fixed-design adjustment
of ``bias_reduced`` does not remove (small against the standard error except in short studies;
BENCHMARKS.md, "The estimand decision").
"""

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import special

from ._resampling import as_float_array, check_choice, check_confidence
from .errors import InsufficientDataError
from .pairwise import _fit_half, _has_mle

TARGETS = ("ranking", "top_k")
# each judgment's weight in the estimating equation, as a power of q / pi: 1, 1/2, 0
WEIGHTINGS = {"inverse_probability": 1.0, "stabilised": 0.5, "none": 0.0}
# the allocations that minimise a weighting's variance (stabilised has no closed form or monotone algorithm here)
ALLOCATION_WEIGHTINGS = ("inverse_probability", "none")
DEFAULT_FLOORS = {"inverse_probability": 0.3, "none": 0.1}
# iterations of the multiplicative algorithm for the A-optimal design of the unweighted fit
DESIGN_ITERATIONS = 30


@dataclass(frozen=True, kw_only=True)
class WaldFit:
    """Log-strengths (mean zero) with sandwich standard errors and Wald intervals (``_wald``); ``ranking`` the
    indices strongest first, ``contrast_se[r]`` the standard error of the difference between the ones ranked r
    and r + 1."""

    strengths: tuple[float, ...]
    standard_errors: tuple[float, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    ranking: tuple[int, ...]
    contrast_se: tuple[float, ...]
    covariance: tuple[tuple[float, ...], ...]


@dataclass(frozen=True, kw_only=True)
class IpwBradleyTerry(WaldFit):
    """Bradley–Terry log-strengths from inverse-probability-weighted comparisons (``WaldFit``)."""

    n_comparisons: int


@dataclass(frozen=True, eq=False)
class IpwWinRates:
    """Horvitz–Thompson estimates of each pair's win probability (ties half) under the reference
    design, and of each system's mean win probability against an opponent drawn from it."""

    pairs: np.ndarray
    pair_win_rate: np.ndarray
    pair_se: np.ndarray
    system_win_rate: np.ndarray
    system_se: np.ndarray


def system_pairs(n_systems: int) -> np.ndarray:
    """All pairs (i, j), i < j, of ``n_systems`` systems in ``itertools.combinations`` order."""
    if isinstance(n_systems, bool) or not isinstance(n_systems, int | np.integer) or n_systems < 2:
        raise ValueError(f"n_systems must be a whole number of at least 2, got {n_systems!r}")
    return np.array(list(combinations(range(n_systems), 2)), dtype=int)


def _check(n_systems, first, second, outcome, probability, reference):
    pairs = system_pairs(n_systems)
    first, second = np.asarray(first), np.asarray(second)
    y = as_float_array(outcome, "outcome")
    pi = as_float_array(probability, "probability")
    if not len(first) == len(second) == len(y) == len(pi):
        raise ValueError("first, second, outcome and probability must have one element per comparison")
    if len(y) and (not np.issubdtype(first.dtype, np.integer) or not np.issubdtype(second.dtype, np.integer)):
        raise ValueError("first and second must be integer system codes")
    if len(y) and (min(first.min(), second.min()) < 0 or max(first.max(), second.max()) >= n_systems):
        raise ValueError(f"system codes must lie in 0 … {n_systems - 1}")
    if (first == second).any():
        raise ValueError("a comparison must be between two different systems")
    if not np.isin(y, (0.0, 1.0, 2.0)).all():
        raise ValueError("outcome must be 0 (first loses), 1 (tie) or 2 (first wins)")
    if np.isnan(pi).any() or (pi <= 0).any() or (pi > 1).any():
        raise ValueError("probability must be the sampling probability of each comparison, in (0, 1]")
    q = np.full(len(pairs), 1.0 / len(pairs)) if reference is None else as_float_array(reference, "reference")
    if q.shape != (len(pairs),) or np.isnan(q).any() or (q <= 0).any() or not np.isclose(q.sum(), 1.0):
        raise ValueError(
            f"reference must give every one of the {len(pairs)} pairs a positive probability, summing to 1"
        )
    low, high = np.minimum(first, second), np.maximum(first, second)
    # index of pair (low, high) in combinations order
    index = low * n_systems - low * (low + 1) // 2 + (high - low - 1)
    # the outcome as a score for the lower-coded system: 1 win, 1/2 tie, 0 loss
    score = np.where(first == low, y, 2.0 - y) / 2.0
    return pairs, q, index.astype(int), score, pi


def _tables(n_systems, pairs, index, score, weights):
    """Weighted tables for :func:`._fit_half`: half-win counts as 'wins' (ties folded in)."""
    m = len(pairs)
    won = np.bincount(index, weights=weights * score, minlength=m)
    lost = np.bincount(index, weights=weights * (1.0 - score), minlength=m)
    wins = np.zeros((n_systems, n_systems))
    wins[pairs[:, 0], pairs[:, 1]] = won
    wins[pairs[:, 1], pairs[:, 0]] = lost
    return wins


def _information(n_systems, pairs, theta, per_pair):
    """Sum over pairs of per_pair * p(1 - p) * x x^T, x = e_i - e_j."""
    p = special.expit(theta[pairs[:, 0]] - theta[pairs[:, 1]])
    v = per_pair * p * (1.0 - p)
    h = np.zeros((n_systems, n_systems))
    np.add.at(h, (pairs[:, 0], pairs[:, 0]), v)
    np.add.at(h, (pairs[:, 1], pairs[:, 1]), v)
    np.add.at(h, (pairs[:, 0], pairs[:, 1]), -v)
    np.add.at(h, (pairs[:, 1], pairs[:, 0]), -v)
    return h


def _pseudo_inverse(h):
    """Inverse of an information matrix on the sum-zero subspace (theta is identified up to a constant)."""
    k = len(h)
    centre = np.full((k, k), 1.0 / k)
    return np.linalg.inv(h + centre) - centre


def _contrasts(theta, target, top_k):
    order = np.argsort(-theta, kind="stable")
    last = len(theta) - 1 if target == "ranking" else min(top_k, len(theta) - 1)
    c = np.zeros((last, len(theta)))
    c[np.arange(last), order[:last]] = 1.0
    c[np.arange(last), order[1 : last + 1]] = -1.0
    return c


def _leverages(n_systems, pairs, theta, total_weight, total_squared_weight):
    """Per pair, the bread-weighted leverage W_a p(1 - p) x_a' V x_a with V the model-expected
    sandwich H^{-1} M H^{-1} (M = sum_a W2_a p(1 - p) x x')."""
    h_inv = _pseudo_inverse(_information(n_systems, pairs, theta, total_weight))
    v = h_inv @ _information(n_systems, pairs, theta, total_squared_weight) @ h_inv
    i, j = pairs[:, 0], pairs[:, 1]
    p = special.expit(theta[i] - theta[j])
    return total_weight * p * (1.0 - p) * (v[i, i] + v[j, j] - 2.0 * v[i, j])


def _bias_reduced(n_systems, pairs, wins, total_weight, total_squared_weight, theta, max_iter, tol):
    """Root of the adjusted estimating equation sum_a [won_a - W_a p_a + h_a (1/2 - p_a)] x_a = 0,
    found as Firth's pseudo-data: h_a / 2 added to each side of pair a, refitted until h settles."""
    i, j = pairs[:, 0], pairs[:, 1]
    for _ in range(max_iter):
        h = _leverages(n_systems, pairs, theta, total_weight, total_squared_weight)
        adjusted = wins.copy()
        adjusted[i, j] += h / 2.0
        adjusted[j, i] += h / 2.0
        new = _fit_half(adjusted[None], np.zeros((1, n_systems, n_systems)), max_iter, tol)[0]
        converged = np.abs(new - theta).max() < tol
        theta = new
        if converged:
            break
    return theta


def allocation_probabilities(
    n_systems,
    first,
    second,
    outcome,
    probability,
    *,
    target="ranking",
    top_k=None,
    cold_start=None,
    floor=None,
    reference=None,
    weighting="inverse_probability",
) -> np.ndarray:
    r"""The probabilities with which to draw the next pair, one per pair of :func:`system_pairs`.

    Parameters
    ----------
    n_systems : int
    first, second, outcome, probability : array_like, shape (n_comparisons,)
        The judgments so far (systems as integer codes) and the probability each was drawn with.
    target : {"ranking", "top_k"}
        The whole ranking (every difference between neighbours in the current ranking) or the
        top ``top_k`` (the differences between neighbours among the first ``top_k`` + 1).
    cold_start : int, optional
        Judgments drawn from the reference design before adapting; two per pair by default.
    floor : float, optional
        Share of the reference design mixed into every allocation, in (0, 1]: it keeps every
        probability at least ``floor`` × q, which bounds the inverse weights by 1 / ``floor``.
        By default 0.3 with inverse-probability weights: in the benchmark (20 systems, top 3) it
        reached a given interval width sooner than 0.1 did and left the weighted strengths less
        biased, because early allocations rest on noisy estimates and large weights inflate the
        weighted fit's small-sample bias; at the true strengths 0.3 costs 16% more judgments
        than 0.1 would. By default 0.1 unweighted, where it bounds no weight and only keeps
        every pair in reach of a wrong early ranking (:data:`DEFAULT_FLOORS`).
    reference : array_like, optional
        The reference design :math:`q` over pairs; uniform by default.
    weighting : {"inverse_probability", "none"}
        The estimator whose variance the allocation minimises (see the module's notes).

    Notes
    -----
    With :math:`\hat\theta` the weighted fit so far (a weak prior of one half-win each way per pair
    keeps it finite early on), :math:`p_a = P(i \succ j)` and :math:`x_a = e_i - e_j` for pair
    :math:`a = (i, j)`, the reference design's information per judgment is
    :math:`H = \sum_a q_a p_a(1-p_a) x_a x_a^\top`. Drawing pairs with :math:`\pi` and weighting by
    :math:`q/\pi`, the weighted estimator's variance per judgment is the sandwich
    :math:`H^{-1} (\sum_a (q_a^2/\pi_a) p_a(1-p_a) x_a x_a^\top) H^{-1}` ([1]_ §5, [4]_), so the
    sum of the variances of the target contrasts :math:`C\theta` is
    :math:`\sum_a (q_a^2/\pi_a)\, s_a^2` with :math:`s_a = \sqrt{p_a(1-p_a)}\,\lVert C H^{-1}
    x_a\rVert`. By Cauchy–Schwarz it is smallest at :math:`\pi_a \propto q_a s_a` (as in
    Neyman allocation); the returned probabilities are :math:`(1 - f)\,\pi + f\,q` with
    :math:`f` = ``floor``.

    With ``weighting="none"`` the variance per judgment is :math:`\operatorname{tr}(C H_\pi^{-1}
    C^\top)` with :math:`H_\pi = \sum_a \pi_a p_a(1-p_a) x_a x_a^\top`, the A-optimality
    criterion. It is minimised over :math:`\pi = f q + (1 - f)\sigma`, :math:`\sigma` any design,
    by the multiplicative algorithm :math:`\sigma_a \leftarrow \sigma_a g_a^{1/2} / \sum_b
    \sigma_b g_b^{1/2}` with :math:`g_a = p_a(1-p_a)\lVert C H_\pi^{-1} x_a\rVert^2` the
    criterion's derivative, monotone for A-optimality [11]_.
    """
    check_choice("target", target, TARGETS)
    check_choice("weighting", weighting, ALLOCATION_WEIGHTINGS)
    if target == "top_k" and (
        isinstance(top_k, bool) or not isinstance(top_k, int | np.integer) or not 1 <= top_k < n_systems
    ):
        raise ValueError(f"top_k must be a whole number from 1 to {n_systems - 1} when target is 'top_k'")
    floor = DEFAULT_FLOORS[weighting] if floor is None else floor
    if isinstance(floor, bool) or not isinstance(floor, int | float) or not 0 < floor <= 1:
        raise ValueError(f"floor must be a number in (0, 1], got {floor!r}")
    pairs, q, index, score, pi = _check(n_systems, first, second, outcome, probability, reference)
    cold_start = 2 * len(pairs) if cold_start is None else cold_start
    if isinstance(cold_start, bool) or not isinstance(cold_start, int | np.integer) or cold_start < 0:
        raise ValueError(f"cold_start must be a non-negative whole number of judgments, got {cold_start!r}")
    if len(index) < cold_start:
        return q
    weights = (q[index] / pi) ** WEIGHTINGS[weighting]
    # rescale the weights to the number of judgments so that the prior stays weak
    wins = _tables(n_systems, pairs, index, score, weights * len(index) / weights.sum())
    prior = np.full((n_systems, n_systems), 0.5)
    np.fill_diagonal(prior, 0.0)
    theta = _fit_half((wins + prior)[None], np.zeros((1, n_systems, n_systems)), 100, 1e-8)[0]
    x = np.zeros((len(pairs), n_systems))
    x[np.arange(len(pairs)), pairs[:, 0]] = 1.0
    x[np.arange(len(pairs)), pairs[:, 1]] = -1.0
    p = special.expit(theta[pairs[:, 0]] - theta[pairs[:, 1]])
    contrasts = _contrasts(theta, target, top_k)
    if weighting == "none":
        return _a_optimal(x, p * (1.0 - p), contrasts, q, floor)
    h_inv = _pseudo_inverse(_information(n_systems, pairs, theta, q))
    s = np.sqrt(p * (1.0 - p)) * np.linalg.norm(contrasts @ h_inv @ x.T, axis=0)
    optimal = q * s / (q * s).sum()
    return (1.0 - floor) * optimal + floor * q


def _a_optimal(x, variance, contrasts, q, floor):
    """The design f q + (1 - f) sigma minimising tr(C H^-1 C'), by the multiplicative algorithm [11]."""
    sigma = q.copy()
    for _ in range(DESIGN_ITERATIONS):
        design = floor * q + (1.0 - floor) * sigma
        h_inv = _pseudo_inverse(x.T @ (x * (design * variance)[:, None]))
        gradient = variance * (np.linalg.norm(contrasts @ h_inv @ x.T, axis=0) ** 2)
        sigma = sigma * np.sqrt(gradient)
        sigma /= sigma.sum()
    return floor * q + (1.0 - floor) * sigma


def ipw_bradley_terry(
    n_systems,
    first,
    second,
    outcome,
    probability,
    *,
    reference=None,
    weighting="inverse_probability",
    confidence=0.95,
    bias_reduced=True,
    frequency=None,
    max_iter=100,
    tol=1e-10,
) -> IpwBradleyTerry:
    r"""Bradley–Terry (ties as half-wins) fitted with inverse-probability weights
    :math:`w_t = q(a_t)/\pi_t(a_t)` (``weighting``: or their square root, or none; see the
    module's notes), with sandwich standard errors; by default with the second-order bias removed
    (``bias_reduced``).

    Notes
    -----
    The weighted score :math:`\sum_t w_t (y_t - p_{a_t}(\theta)) x_{a_t}` has, given the past,
    the expectation of the reference design's score (:math:`E[w_t 1\{a_t = a\}] = q_a`), so the
    estimating equation is unbiased whatever the allocation and :math:`\hat\theta` converges to
    the Bradley–Terry fit of the reference design ([1]_ §5, [2]_). The variance is the sandwich
    :math:`\hat H^{-1} \hat M \hat H^{-1}` with :math:`\hat H = \sum_t w_t p(1-p) x x^\top` and
    :math:`\hat M = \sum_t w_t^2 (y_t - p)^2 x x^\top`, justified by the martingale central
    limit theorem [4]_; intervals are Wald intervals. The same holds for :math:`w_t =
    (q/\pi_t)^{1/2}` and :math:`w_t = 1`, except that the estimand is then the model's strengths
    (the reference design's fit only if the model holds).

    The root of that equation carries the usual :math:`O(1/n)` bias of a maximum-likelihood-type
    fit (strengths spread outwards), which inverse weights enlarge for the pairs an allocation
    neglects. Its second-order expansion [7]_ gives, with :math:`V = H^{-1} M H^{-1}` and the
    model-expected :math:`M = \sum_t w_t^2 p(1-p) x x^\top`,
    :math:`b(\theta) = -\tfrac12 H^{-1} \sum_t w_t p(1-p)(1-2p)\, x_t\, (x_t^\top V x_t)`, and
    ``bias_reduced`` solves the adjusted equation
    :math:`\sum_t w_t [y_t - p_t + h_t(\tfrac12 - p_t)] x_t = 0` with
    :math:`h_t = p_t(1-p_t) x_t^\top V x_t`, whose root is free of that term ([5]_, [6]_). With
    unit weights :math:`V = H^{-1}`, :math:`h_t` is the leverage and this is Firth's
    Jeffreys-penalised fit. The variance is evaluated at the adjusted root; the adjustment does
    not change it to first order. Ties enter :math:`M` as if they were half a win and half a loss.

    ``frequency`` (optional, one positive count per row) says how many identical comparisons a row
    stands for, so that aggregated votes (pair, outcome, probability, count) fit as the votes would.

    Raises
    ------
    InsufficientDataError
        No finite estimate (some system never won or never lost, or the pairs judged do not
        connect the systems).
    """
    confidence = check_confidence(confidence)
    check_choice("weighting", weighting, tuple(WEIGHTINGS))
    pairs, q, index, score, pi = _check(n_systems, first, second, outcome, probability, reference)
    count = np.ones(len(index)) if frequency is None else as_float_array(frequency, "frequency")
    if count.shape != index.shape or np.isnan(count).any() or (count <= 0).any():
        raise ValueError("frequency must be a positive count for each comparison")
    weights = (q[index] / pi) ** WEIGHTINGS[weighting]
    wins = _tables(n_systems, pairs, index, score, count * weights)
    if not _has_mle(wins[None])[0]:
        raise InsufficientDataError(
            "no finite Bradley–Terry estimate: some system never won (or never lost), "
            "or the pairs judged do not connect all systems"
        )
    theta = _fit_half(wins[None], np.zeros((1, n_systems, n_systems)), max_iter, tol)[0]
    total_weight = np.bincount(index, weights=count * weights, minlength=len(pairs))
    if bias_reduced:
        total_squared_weight = np.bincount(index, weights=count * weights**2, minlength=len(pairs))
        theta = _bias_reduced(n_systems, pairs, wins, total_weight, total_squared_weight, theta, max_iter, tol)
    bread = _information(n_systems, pairs, theta, total_weight)
    p = special.expit(theta[pairs[index, 0]] - theta[pairs[index, 1]])
    meat_per_pair = np.bincount(index, weights=count * (weights * (score - p)) ** 2, minlength=len(pairs))
    meat = np.zeros((n_systems, n_systems))
    np.add.at(meat, (pairs[:, 0], pairs[:, 0]), meat_per_pair)
    np.add.at(meat, (pairs[:, 1], pairs[:, 1]), meat_per_pair)
    np.add.at(meat, (pairs[:, 0], pairs[:, 1]), -meat_per_pair)
    np.add.at(meat, (pairs[:, 1], pairs[:, 0]), -meat_per_pair)
    b_inv = _pseudo_inverse(bread)
    return IpwBradleyTerry(**_wald(theta, b_inv @ meat @ b_inv, confidence), n_comparisons=int(round(count.sum())))


def _wald(theta, cov, confidence) -> dict:
    """What a sandwich fit reports: strengths, standard errors, Wald intervals, the ranking, the standard errors
    of the contrasts between neighbours in it, and the covariance."""
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    z = special.ndtri(0.5 + confidence / 2.0)
    contrasts = _contrasts(theta, "ranking", None)
    return {
        "strengths": tuple(float(v) for v in theta),
        "standard_errors": tuple(float(v) for v in se),
        "ci_low": tuple(float(v) for v in theta - z * se),
        "ci_high": tuple(float(v) for v in theta + z * se),
        "ranking": tuple(int(v) for v in np.argsort(-theta, kind="stable")),
        "contrast_se": tuple(
            float(v) for v in np.sqrt(np.clip(np.einsum("ri,ij,rj->r", contrasts, cov, contrasts), 0, None))
        ),
        "covariance": tuple(tuple(float(v) for v in row) for row in cov),
    }


def ipw_win_rates(n_systems, first, second, outcome, probability, *, reference=None) -> IpwWinRates:
    r"""Horvitz–Thompson [3]_ estimates of win probabilities under the reference design.

    Notes
    -----
    For pair :math:`a` and :math:`T` judgments,
    :math:`\hat p_a = \frac{1}{T}\sum_t \frac{1\{a_t = a\}\, y_t}{\pi_t(a)}` (:math:`y_t` the lower
    code's score: 1 win, 1/2 tie, 0 loss) is exactly unbiased for :math:`P(i \succ j) + P(i = j)/2`
    however :math:`\pi_t` depends on the past, because each term has conditional expectation
    :math:`p_a` given the past. A system's mean win probability against an opponent drawn
    uniformly is the mean of its pairs' estimates, unbiased in turn. Standard errors treat the
    terms as martingale differences: :math:`\sqrt{\sum_t (z_t - \hat p_a)^2}/T` with :math:`z_t`
    the term of judgment :math:`t`.
    """
    pairs, _, index, score, pi = _check(n_systems, first, second, outcome, probability, reference)
    n = len(index)
    if n == 0:
        raise InsufficientDataError("no comparisons to estimate win rates from")
    terms = np.zeros((len(pairs), n))
    terms[index, np.arange(n)] = score / pi
    estimate = terms.mean(axis=1)
    se = np.sqrt(((terms - estimate[:, None]) ** 2).sum(axis=1)) / n
    # system s's score in pair a: p_a when s is the lower code, 1 - p_a otherwise
    sign = np.zeros((n_systems, len(pairs)))
    sign[pairs[:, 0], np.arange(len(pairs))] = 1.0
    sign[pairs[:, 1], np.arange(len(pairs))] = -1.0
    system_terms = sign @ terms / (n_systems - 1)
    # 1 - p for the higher code: its constant part is added outside the terms
    constant = (sign < 0).sum(axis=1) / (n_systems - 1)
    system = system_terms.mean(axis=1) + constant
    system_se = np.sqrt(((system_terms - system_terms.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)) / n
    return IpwWinRates(pairs=pairs, pair_win_rate=estimate, pair_se=se, system_win_rate=system, system_se=system_se)
