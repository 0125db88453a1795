"""Rater models: who disagrees with whom and how. Dawid–Skene and MACE for categories (Likert points,
pairwise outcomes), a Gaussian model with a bias and a noise level per rater for scales (RankME sliders,
Likert read as interval), beside the majority vote and the mean they improve on.

The EM algorithms are written here rather than taken from ``crowd-kit`` (the cross-check of the tests):
crowd-kit works on pandas frames and pulls nltk, transformers and pyarrow, none of them runtime
dependencies of Concord, and takes seconds to import on a page; it has no model for scales either. These
work on the house's reliability data, numpy only, and keep declared categories nobody used.
"""

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from .errors import InsufficientDataError

# crowd-kit's floor on a confusion probability (``_EPS`` of its Dawid–Skene), kept so that both agree
_FLOOR = 1e-10


@dataclass(frozen=True)
class CategoricalRaterModel:
    """A fitted categorical rater model over ``n_raters`` × ``n_units`` with ``K`` categories.

    ``posteriors`` (n_units, K): each unit's probability of each true category; ``labels`` (n_units,): the
    most probable category (its value, not its index); ``priors`` (K,); ``confusions`` (n_raters, K, K):
    the probability that the rater answers category ``l`` (column) when the truth is ``k`` (row);
    ``competence`` (n_raters,): Dawid–Skene, the prior-weighted probability of answering the truth; MACE,
    the probability the rater knows rather than guesses (1 − spamming).
    """

    model: str
    categories: tuple
    posteriors: np.ndarray
    labels: np.ndarray
    priors: np.ndarray
    confusions: np.ndarray
    competence: np.ndarray
    n_iter: int
    converged: bool
    log_likelihood: float


@dataclass(frozen=True)
class GaussianRaterModel:
    """A fitted Gaussian rater model: ``adjusted`` (n_units,) the score with every rater's bias taken out
    and raters weighted by their precision, ``adjusted_se`` its standard error (the biases and noise levels
    taken as known), ``means`` the plain mean;
    ``bias`` and ``noise_sd`` (n_raters,)."""

    adjusted: np.ndarray
    adjusted_se: np.ndarray
    means: np.ndarray
    bias: np.ndarray
    noise_sd: np.ndarray
    n_iter: int
    converged: bool


def _observations(reliability_data) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    data = np.asarray(reliability_data, dtype=float)
    if data.ndim != 2:
        raise ValueError(f"reliability data must be 2-D (n_raters, n_units), got {data.ndim}-D")
    raters, units = np.nonzero(~np.isnan(data))
    if not len(raters):
        raise InsufficientDataError("no rating at all: the models need at least one unit rated twice")
    if np.bincount(units, minlength=data.shape[1]).max() < 2:
        raise InsufficientDataError("no unit is rated by two raters: a rater model needs overlapping raters")
    return raters, units, data[raters, units], data.shape[0], data.shape[1]


def _codes(values: np.ndarray, categories) -> tuple[tuple, np.ndarray]:
    observed = sorted(set(values.tolist()))
    categories = tuple(observed if categories is None else categories)
    index = {float(c): k for k, c in enumerate(categories)}
    unknown = [v for v in observed if v not in index]
    if unknown:
        raise ValueError(f"values {unknown[:5]} are not among the categories {list(categories)}")
    if len(categories) < 2:
        raise InsufficientDataError("a single category: nothing to model")
    return categories, np.array([index[v] for v in values.tolist()], dtype=np.int64)


def vote_shares(reliability_data, *, categories=None) -> tuple[tuple, np.ndarray]:
    """Each unit's distribution of answers over the categories: the soft label of the LeWiDi tasks.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        Category values, ``np.nan`` where a rater did not rate a unit.
    categories : sequence, optional
        The declared, ordered categories; those observed when None.

    Returns
    -------
    categories : tuple
    shares : ndarray, shape (n_units, K)
        Rows sum to 1; a unit nobody rated is all zeros.

    Examples
    --------
    >>> vote_shares([[1, 2], [1, 1], [2, np.nan]], categories=[1, 2])[1].tolist()
    [[0.6666666666666666, 0.3333333333333333], [0.5, 0.5]]
    """
    data = np.asarray(reliability_data, dtype=float)
    if data.ndim != 2:
        raise ValueError(f"reliability data must be 2-D (n_raters, n_units), got {data.ndim}-D")
    raters, units = np.nonzero(~np.isnan(data))
    categories, codes = _codes(data[raters, units], categories)
    counts = np.zeros((data.shape[1], len(categories)))
    np.add.at(counts, (units, codes), 1.0)
    totals = counts.sum(axis=1, keepdims=True)
    return categories, np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)


def _posteriors(log_weights: np.ndarray, units: np.ndarray, n_units: int, log_prior: np.ndarray):
    """Normalised posteriors and the log marginal likelihood from per-observation log likelihoods."""
    log_post = np.tile(log_prior, (n_units, 1))
    np.add.at(log_post, units, log_weights)
    top = log_post.max(axis=1, keepdims=True)
    scaled = np.exp(log_post - top)
    total = scaled.sum(axis=1, keepdims=True)
    return scaled / total, float((np.log(total) + top).sum())


def _dawid_skene_m_step(post, raters, units, codes, n_raters, k):
    counts = np.zeros((n_raters, k, k))
    for true in range(k):
        counts[:, true, :] = np.bincount(raters * k + codes, weights=post[units, true], minlength=n_raters * k).reshape(
            n_raters, k
        )
    counts = np.clip(counts, _FLOOR, None)
    return counts / counts.sum(axis=2, keepdims=True), post.mean(axis=0)


def dawid_skene(reliability_data, *, categories=None, max_iter: int = 100, tol: float = 1e-7):
    """Dawid and Skene's rater model fitted by expectation–maximisation.

    Each rater ``j`` has a confusion matrix :math:`\\pi^{(j)}_{kl}`, the probability of answering ``l``
    when the true category is ``k``; each unit's true category is drawn from the priors ``p``. EM starts
    from the vote shares (as [2] does) and alternates the posteriors
    :math:`T_{ik} \\propto p_k \\prod_j \\pi^{(j)}_{k, x_{ij}}` with the maximum-likelihood
    :math:`\\pi` and :math:`p` given them [1].

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        Category values, ``np.nan`` = not rated.
    categories : sequence, optional
        Declared, ordered categories (observed ones when None).
    max_iter, tol : int, float
        Stop after ``max_iter`` rounds or when the log likelihood per rating gains less than ``tol``.

    Returns
    -------
    CategoricalRaterModel

    Raises
    ------
    InsufficientDataError
        No unit rated twice, or a single category.

    References
    ----------
    .. [1] Dawid, A. P. & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates using
       the EM algorithm. JRSS C 28(1), 20–28. https://doi.org/10.2307/2346806
    .. [2] Ustalov, D. et al. (2024). Learning from crowds with crowd-kit. JOSS 9(96), 6227.

    Examples
    --------
    >>> m = dawid_skene([[1, 1, 2, 2], [1, 1, 2, 2], [1, 2, 2, 1]])
    >>> m.labels.tolist()
    [1.0, 1.0, 2.0, 2.0]
    """
    raters, units, values, n_raters, n_units = _observations(reliability_data)
    categories, codes = _codes(values, categories)
    k = len(categories)
    post = np.zeros((n_units, k))
    np.add.at(post, (units, codes), 1.0)
    post /= np.maximum(post.sum(axis=1, keepdims=True), 1.0)
    confusions, priors = _dawid_skene_m_step(post, raters, units, codes, n_raters, k)
    previous, converged, n_iter = -np.inf, False, 0
    while n_iter < max_iter:
        n_iter += 1
        log_weights = np.log(confusions[raters, :, codes])
        post, log_likelihood = _posteriors(log_weights, units, n_units, np.log(np.clip(priors, _FLOOR, None)))
        confusions, priors = _dawid_skene_m_step(post, raters, units, codes, n_raters, k)
        if log_likelihood / len(values) - previous < tol:
            converged = True
            break
        previous = log_likelihood / len(values)
    competence = np.einsum("k,jkk->j", priors, confusions)
    return CategoricalRaterModel(
        "dawid_skene",
        categories,
        post,
        np.asarray(categories, dtype=float)[post.argmax(axis=1)],
        priors,
        confusions,
        competence,
        n_iter,
        converged,
        log_likelihood,
    )


def _mace_fit(raters, units, codes, n_raters, n_units, k, *, spam, strategy, max_iter, tol, smoothing):
    previous, converged, n_iter = -np.inf, False, 0
    log_prior = np.full(k, -np.log(k))
    while n_iter < max_iter:
        n_iter += 1
        # P(answer a | truth t) = (1 − s_j)[a = t] + s_j ξ_j(a), Hovy et al. (2013), eq. 1
        guess = spam[raters] * strategy[raters, codes]
        likelihood = np.repeat(guess[:, None], k, axis=1)
        likelihood[np.arange(len(codes)), codes] += 1.0 - spam[raters]
        post, log_likelihood = _posteriors(np.log(likelihood), units, n_units, log_prior)
        knowing = post[units, codes] * (1.0 - spam[raters]) / likelihood[np.arange(len(codes)), codes]
        guessing = 1.0 - knowing
        knew = np.bincount(raters, weights=knowing, minlength=n_raters) + smoothing
        guessed = np.bincount(raters, weights=guessing, minlength=n_raters) + smoothing
        spam = guessed / (knew + guessed)
        strategy = np.bincount(raters * k + codes, weights=guessing, minlength=n_raters * k).reshape(n_raters, k)
        strategy = (strategy + smoothing) / (strategy + smoothing).sum(axis=1, keepdims=True)
        if log_likelihood / len(codes) - previous < tol:
            converged = True
            break
        previous = log_likelihood / len(codes)
    return spam, strategy, post, log_likelihood, n_iter, converged


def mace(
    reliability_data,
    *,
    categories=None,
    rng: np.random.Generator,
    n_restarts: int = 10,
    max_iter: int = 100,
    tol: float = 1e-7,
):
    """MACE (Multi-Annotator Competence Estimation) fitted by expectation–maximisation.

    Rater ``j`` knows the answer with probability :math:`1 - s_j` and otherwise guesses from a
    distribution :math:`\\xi_j`: :math:`P(x_{ij} = a \\mid T_i = t) = (1 - s_j)[a = t] + s_j \\xi_j(a)`,
    the true categories uniform [1]. EM from ``n_restarts`` random starts keeps the fit of highest
    likelihood; counts are smoothed by 0.01 / K as in [1] and crowd-kit.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        Category values, ``np.nan`` = not rated.
    categories : sequence, optional
        Declared, ordered categories (observed ones when None).
    rng : numpy.random.Generator
        The random starts.
    n_restarts, max_iter, tol : int, int, float

    Returns
    -------
    CategoricalRaterModel
        ``competence`` is :math:`1 - s_j`; ``confusions`` the implied :math:`P(l \\mid k)`.

    References
    ----------
    .. [1] Hovy, D., Berg-Kirkpatrick, T., Vaswani, A. & Hovy, E. (2013). Learning whom to trust with
       MACE. NAACL-HLT, 1120–1130. https://aclanthology.org/N13-1132

    Examples
    --------
    >>> m = mace([[1, 1, 2, 2], [1, 1, 2, 2], [2, 1, 1, 1]], rng=np.random.default_rng(0))
    >>> m.labels.tolist()
    [1.0, 1.0, 2.0, 2.0]
    """
    if n_restarts < 1:
        raise ValueError("n_restarts must be at least 1")
    raters, units, values, n_raters, n_units = _observations(reliability_data)
    categories, codes = _codes(values, categories)
    k = len(categories)
    best = None
    for _ in range(n_restarts):
        fit = _mace_fit(
            raters,
            units,
            codes,
            n_raters,
            n_units,
            k,
            spam=rng.uniform(0.1, 0.6, n_raters),
            strategy=rng.dirichlet(np.full(k, 10.0), n_raters),
            max_iter=max_iter,
            tol=tol,
            smoothing=0.01 / k,
        )
        if best is None or fit[3] > best[3]:
            best = fit
    assert best is not None  # n_restarts >= 1
    spam, strategy, post, log_likelihood, n_iter, converged = best
    confusions = spam[:, None, None] * strategy[:, None, :] + (1.0 - spam)[:, None, None] * np.eye(k)
    return CategoricalRaterModel(
        "mace",
        categories,
        post,
        np.asarray(categories, dtype=float)[post.argmax(axis=1)],
        np.full(k, 1.0 / k),
        confusions,
        1.0 - spam,
        n_iter,
        converged,
        log_likelihood,
    )


def _weighted_fit(raters, units, values, precision, n_raters, n_units):
    """Weighted least squares of ``x = mu_unit + b_rater`` for the given rater precisions, the biases
    centred on their mean over ratings: the unit scores are profiled out, leaving the rater-sized
    normal equations (a Schur complement) solved by least squares (they have the constant in their null
    space, and one per group of raters never linked by a shared unit)."""
    w = precision[raters]
    unit_weight = np.bincount(units, weights=w, minlength=n_units)
    unit_sum = np.bincount(units, weights=w * values, minlength=n_units)
    safe = np.where(unit_weight > 0, unit_weight, 1.0)
    link = sparse.csr_matrix((w, (units, raters)), shape=(n_units, n_raters))
    normal = (
        np.diag(np.bincount(raters, weights=w, minlength=n_raters))
        - (link.T @ sparse.diags(1.0 / safe) @ link).toarray()
    )
    rhs = np.bincount(raters, weights=w * values, minlength=n_raters) - link.T @ (unit_sum / safe)
    bias = np.linalg.lstsq(normal, rhs, rcond=None)[0]
    counts = np.bincount(raters, minlength=n_raters)
    rated = counts > 0
    bias[rated] -= np.average(bias[rated], weights=counts[rated])
    bias[~rated] = 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        adjusted = (unit_sum - np.bincount(units, weights=w * bias[raters], minlength=n_units)) / unit_weight
    return adjusted, bias, unit_weight


def gaussian_rater_model(
    reliability_data,
    *,
    per_rater_noise: bool = True,
    prior_strength: float = 2.0,
    max_iter: int = 500,
    tol: float = 1e-9,
):
    """A Gaussian rater model with an additive bias and a noise level per rater, fitted by alternating
    weighted least squares and variance updates (the EM of [2] with a bias term).

    :math:`x_{ij} = \\mu_i + b_j + \\varepsilon_{ij}`, :math:`\\varepsilon_{ij} \\sim N(0, \\sigma_j^2)`:
    the model PG\\ :sub:`1` of [1] (grader bias and reliability), a flat prior on the true scores
    :math:`\\mu_i`, biases centred to a zero mean over ratings (else only differences are identified), and
    a scaled inverse-χ² prior on each :math:`\\sigma_j^2` worth ``prior_strength`` ratings at the pooled
    residual variance, so that a rater seen on few units is not declared noiseless. Each round solves the
    weighted least squares of :math:`\\mu` and :math:`b` jointly for weights :math:`1 / \\sigma_j^2` (one
    score at a time converges far too slowly when raters overlap little), then sets
    :math:`\\sigma_j^2 = (\\sum_i r_{ij}^2 + \\nu s^2) / (n_j + \\nu)` from the residuals. With
    ``per_rater_noise=False`` one σ is shared and the fit is the additive two-way least-squares one.

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        Scores, ``np.nan`` = not rated.
    per_rater_noise : bool
    prior_strength : float
        ν, the prior's weight in ratings (≥ 0).
    max_iter, tol : int, float
        Stop when no score moves by more than ``tol`` times the data's standard deviation.

    Returns
    -------
    GaussianRaterModel

    References
    ----------
    .. [1] Piech, C., Huang, J., Chen, Z., Do, C., Ng, A. & Koller, D. (2013). Tuned models of peer
       assessment in MOOCs. EDM 2013, 153–160. https://arxiv.org/abs/1307.2579
    .. [2] Raykar, V. C. et al. (2010). Learning from crowds. JMLR 11, 1297–1322 (§3, regression).

    Examples
    --------
    >>> m = gaussian_rater_model([[1, 2, 3], [3, 4, 5]])
    >>> m.bias.round(6).tolist(), m.adjusted.round(6).tolist()
    ([-1.0, 1.0], [2.0, 3.0, 4.0])
    """
    if prior_strength < 0:
        raise ValueError("prior_strength must be at least 0")
    raters, units, values, n_raters, n_units = _observations(reliability_data)
    per_rater = np.bincount(raters, minlength=n_raters).astype(float)
    per_unit = np.bincount(units, minlength=n_units).astype(float)
    rated = per_rater > 0
    scale = float(values.std()) or 1.0
    floor = (1e-6 * scale) ** 2
    variance = np.full(n_raters, scale**2)
    previous, converged, n_iter = None, False, 0
    while n_iter < max_iter:
        n_iter += 1
        adjusted, bias, total_weight = _weighted_fit(raters, units, values, 1.0 / variance, n_raters, n_units)
        residual = values - adjusted[units] - bias[raters]
        pooled = max(float(np.mean(residual**2)), floor)
        if per_rater_noise:
            squares = np.bincount(raters, weights=residual**2, minlength=n_raters)
            variance = np.maximum((squares + prior_strength * pooled) / (per_rater + prior_strength), floor)
        else:
            variance = np.full(n_raters, pooled)
        if previous is not None and np.nanmax(np.abs(adjusted - previous)) < tol * scale:
            converged = True
            break
        previous = adjusted
    adjusted, bias, total_weight = _weighted_fit(raters, units, values, 1.0 / variance, n_raters, n_units)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.bincount(units, weights=values, minlength=n_units) / per_unit
        se = 1.0 / np.sqrt(total_weight)
    noise = np.where(rated, np.sqrt(variance), np.nan)
    return GaussianRaterModel(
        adjusted,
        se,
        means,
        np.where(rated, bias, np.nan),
        noise,
        n_iter,
        converged,
    )
