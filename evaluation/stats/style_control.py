r"""Bradley–Terry with style covariates (Chatbot Arena's "style control"), ties as half-wins or by
Davidson's model, with bootstrap intervals.

Each comparison carries the style features of both sides (length, markdown headers, list items,
bold spans); the model explains the outcome by the systems' strengths plus a linear effect of the
sides' normalised feature differences, so that a system's strength is what remains once its
answers' style is accounted for.

References
----------
.. [1] T. Li, A. Angelopoulos and W.-L. Chiang, "Does style matter? Disentangling style and
   substance in Chatbot Arena", LMSYS blog, 2024-08-29, https://lmsys.org/blog/2024-08-28-style-control/.
.. [2] R. R. Davidson, "On Extending the Bradley–Terry Model to Accommodate Ties in Paired
   Comparison Experiments", *JASA* 65(329), 1970, https://doi.org/10.1080/01621459.1970.10481082.
.. [3] R. A. Bradley and M. E. Terry, "Rank Analysis of Incomplete Block Designs: I",
   *Biometrika* 39(3/4), 1952, https://doi.org/10.2307/2334029.
"""

import re
from dataclasses import dataclass

import numpy as np
from scipy import special

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
from .pairwise import TIE_MODELS, BradleyTerryResult, _check_comparisons, _has_mle, _pair_tables

STYLE_FEATURES = ("length", "headers", "list_items", "bold")
_HEADER = re.compile(r"^#{1,6}\s", re.MULTILINE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s", re.MULTILINE)
_BOLD = re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__")
# a log-strength this large means a probability within 1e-13 of 0 or 1: the fit is running off
_DIVERGED = 30.0


@dataclass(frozen=True)
class StyleControlledResult(BradleyTerryResult):
    """Log-strengths (mean zero) and style coefficients with percentile bootstrap intervals: the fields of a
    Bradley–Terry result, and per style feature its coefficient.

    ``coefficients[f]`` is the change in the log-odds of winning per standard deviation of the
    normalised difference in feature ``features[f]``; ``tie_parameter`` is Davidson's
    :math:`\\nu` (None for half-wins)."""

    features: tuple[str, ...]
    coefficients: tuple[float, ...]
    coefficient_ci_low: tuple[float, ...]
    coefficient_ci_high: tuple[float, ...]


def style_features(texts) -> np.ndarray:
    """The style features of each text: words (whitespace-separated; the arena counts tokenizer
    tokens), markdown headers, list items and bold spans, as in [1]_. Shape (n_texts, 4), in the
    order of ``STYLE_FEATURES``.

    Examples
    --------
    >>> style_features(["# Plan\\n- **one** thing\\n- two\\n\\nDone."]).tolist()
    [[8.0, 1.0, 2.0, 1.0]]
    """
    out = np.zeros((len(texts), len(STYLE_FEATURES)))
    for row, text in enumerate(texts):
        if not isinstance(text, str):
            raise ValueError(f"text {row} is not a string")
        out[row] = (
            len(text.split()),
            len(_HEADER.findall(text)),
            len(_LIST_ITEM.findall(text)),
            len(_BOLD.findall(text)),
        )
    return out


def _style_differences(features_first, features_second, n, names):
    a = as_float_array(features_first, "features_first", ndim=2)
    b = as_float_array(features_second, "features_second", ndim=2)
    if a.shape != b.shape or a.shape[0] != n:
        raise ValueError(
            f"features_first and features_second must both have shape (n_comparisons, n_features) = ({n}, …); "
            f"got {a.shape} and {b.shape}"
        )
    if np.isnan(a).any() or np.isnan(b).any() or (a < 0).any() or (b < 0).any():
        raise ValueError("style features must be non-negative counts (no NaN)")
    names = tuple(f"feature_{f}" for f in range(a.shape[1])) if names is None else tuple(names)
    if len(names) != a.shape[1]:
        raise ValueError(f"feature_names must name the {a.shape[1]} feature columns; got {len(names)} names")
    total = a + b
    diff = np.divide(a - b, total, out=np.zeros_like(total), where=total > 0)
    sd = diff.std(axis=0)
    flat = np.flatnonzero(sd == 0)
    if len(flat):
        raise InsufficientDataError(
            f"style feature {names[flat[0]]!r} does not vary between the sides of any comparison"
        )
    return (diff - diff.mean(axis=0)) / sd, names


def _negloglik(params, i, j, y, z, weights, k, davidson):
    """Negative log-likelihood, gradient and Hessian in (theta, beta[, log nu])."""
    n_par = len(params)
    a = params[i] - params[j] + z @ params[k : k + z.shape[1]]
    if davidson:
        eta = params[-1]
        half_up, half_down, nu = np.exp(a / 2.0), np.exp(-a / 2.0), np.exp(eta)
        d = half_up + half_down + nu
        score = np.where(y == 2.0, 0.5, np.where(y == 0.0, -0.5, 0.0))
        value = -(weights * (score * a + (y == 1.0) * eta - np.log(d))).sum()
        da = (half_up - half_down) / (2.0 * d)
        de = nu / d
        g_a = weights * (score - da)
        g_e = weights * ((y == 1.0) - de)
        h_aa = weights * ((half_up + half_down) / (4.0 * d) - da**2)
        h_ee = weights * (de - de**2)
        h_ae = weights * (-da * de)
    else:
        p = special.expit(a)
        score = y / 2.0
        value = -(weights * (score * a - np.logaddexp(0.0, a))).sum()
        g_a = weights * (score - p)
        h_aa = weights * p * (1.0 - p)
    x = np.zeros((len(a), n_par))
    rows = np.arange(len(a))
    x[rows, i] = 1.0
    x[rows, j] = -1.0
    x[:, k : k + z.shape[1]] = z
    grad = x.T @ g_a
    hessian = (x * h_aa[:, None]).T @ x
    if davidson:
        grad[-1] = g_e.sum()
        cross = x.T @ h_ae
        hessian[-1, :] = cross
        hessian[:, -1] = cross
        hessian[-1, -1] = h_ee.sum()
    return value, -grad, hessian


def _fit(i, j, y, z, weights, k, davidson, start, max_iter, tol):
    """Newton's method with backtracking; the likelihood is concave in (theta, beta, log nu).
    Returns (params, negative log-likelihood, gradient) or None when the fit runs off."""
    params = start.copy()
    centre = np.zeros((len(params), len(params)))
    centre[:k, :k] = 1.0 / k
    value, grad, hessian = _negloglik(params, i, j, y, z, weights, k, davidson)
    for _ in range(max_iter):
        try:
            step = -np.linalg.solve(hessian + centre, grad)
        except np.linalg.LinAlgError:  # no unique maximum: a resample without some system, or collinear features
            return None
        slope, t = float(grad @ step), 1.0
        rounding = 16.0 * np.finfo(float).eps * abs(value)
        while True:
            trial = params + t * step
            trial_value, trial_grad, trial_hessian = _negloglik(trial, i, j, y, z, weights, k, davidson)
            if trial_value <= value + 1e-4 * t * slope + rounding or t < 1e-10:
                break
            t /= 2.0
        params, value, grad, hessian = trial, trial_value, trial_grad, trial_hessian
        params[:k] -= params[:k].mean()
        if np.abs(params[:-1] if davidson else params).max() > _DIVERGED:
            return None
        if np.abs(t * step).max() < tol:
            return params, value, grad
    return None


def bradley_terry_style(
    first,
    second,
    outcome,
    features_first,
    features_second,
    *,
    feature_names=STYLE_FEATURES,
    ties="half",
    units=None,
    confidence=0.95,
    n_resamples=1000,
    rng=None,
    max_iter=100,
    tol=1e-10,
) -> StyleControlledResult:
    r"""Bradley–Terry strengths controlled for style, with bootstrap intervals.

    Parameters
    ----------
    first, second, outcome : array_like, shape (n_comparisons,)
        As in :func:`bradley_terry` (0 first loses, 1 tie, 2 first wins).
    features_first, features_second : array_like, shape (n_comparisons, n_features)
        Non-negative style counts of each side (e.g. :func:`style_features` of the two texts).
    feature_names : sequence of str
        One name per column (``STYLE_FEATURES`` by default).
    ties : {"half", "davidson"}
        Ties as half-wins (as the arena does) or Davidson's tie model [2]_.
    units, confidence, n_resamples, rng, max_iter, tol
        As in :func:`bradley_terry`: percentile intervals from a bootstrap over ``units``.

    Raises
    ------
    InsufficientDataError
        Fewer than two systems, no finite estimate (a system that never won or never lost, a
        split league, or a style feature that separates wins from losses), or a feature that
        never differs between the sides.

    Notes
    -----
    As in [1]_, feature :math:`f` enters as the normalised difference
    :math:`(f_{\text{first}} - f_{\text{second}}) / (f_{\text{first}} + f_{\text{second}})` (0 when
    both are 0), standardised over the comparisons; with :math:`z_t` those values and
    :math:`a_t = \theta_{\text{first}} - \theta_{\text{second}} + \beta^\top z_t`, ties as
    half-wins maximise :math:`\sum_t y_t a_t - \log(1 + e^{a_t})` with :math:`y_t \in \{0, 1/2, 1\}`
    (the arena's logistic regression [1]_, [3]_), and Davidson's model [2]_ becomes

    .. math:: P(\text{first wins}) = \frac{e^{a/2}}{e^{a/2} + e^{-a/2} + \nu}, \quad
              P(\text{tie}) = \frac{\nu}{e^{a/2} + e^{-a/2} + \nu},

    which with :math:`\beta = 0` is :func:`bradley_terry`'s Davidson fit (divide its numerator
    and denominator by :math:`\sqrt{\pi_i \pi_j}`). Both log-likelihoods are concave in
    :math:`(\theta, \beta, \log\nu)` (log-sum-exps of affine functions) and are maximised by
    Newton's method with backtracking. Bootstrap replicates are refitted from the estimate;
    those without a finite maximum are counted and left out of the intervals. The
    standardisation is computed once on the data, so coefficients of all replicates are on the
    same scale.
    """
    check_choice("ties", ties, TIE_MODELS)
    confidence = check_confidence(confidence)
    n_resamples = check_resampling(n_resamples, rng)
    labels, i, j, y = _check_comparisons(first, second, outcome)
    k = len(labels)
    if k < 2:
        raise InsufficientDataError("Bradley–Terry needs comparisons between at least two systems")
    z, names = _style_differences(features_first, features_second, len(y), feature_names)
    davidson = ties == "davidson"
    wins, tie_table = _pair_tables(k, i, j, y, np.ones((1, len(y))))
    davidson = davidson and bool(tie_table.any())
    start = np.zeros(k + z.shape[1] + (1 if davidson else 0))
    if davidson:
        start[-1] = np.log(max(tie_table.sum() / 2.0, 0.5) / max(wins.sum(), 1.0))
    fit = (
        _fit(i, j, y, z, np.ones(len(y)), k, davidson, start, max_iter, tol)
        if _has_mle(wins + tie_table / 2.0)[0]
        else None
    )
    if fit is None:
        raise InsufficientDataError(
            "no finite Bradley–Terry estimate: some system never won (or never lost), the systems split "
            "into groups that never met, or a style feature separates wins from losses"
        )
    params, value, grad = fit
    p = k + z.shape[1]
    low = high = np.full(p, np.nan)
    failed = 0
    if n_resamples:
        unit_codes = np.arange(len(y)) if units is None else codes(units, "units")[1]
        if len(unit_codes) != len(y):
            raise ValueError(f"units must have one element per comparison; got {len(unit_codes)} for {len(y)}")
        samples = []
        for block in bootstrap_counts(int(unit_codes.max()) + 1, n_resamples, rng):
            for counts in block:
                weights = counts[unit_codes]
                refit = _fit(i, j, y, z, weights, k, davidson, params, max_iter, tol)
                samples.append(np.full(p, np.nan) if refit is None else refit[0][:p])
                failed += refit is None
        low, high = percentile_interval(np.array(samples), confidence)
    if ties == "davidson":
        nu = float(np.exp(params[-1])) if davidson else 0.0
    else:
        nu = None
    return StyleControlledResult(
        systems=tuple(plain(x) for x in labels),
        strengths=tuple(float(v) for v in params[:k]),
        ci_low=tuple(float(v) for v in low[:k]),
        ci_high=tuple(float(v) for v in high[:k]),
        features=tuple(str(x) for x in names),
        coefficients=tuple(float(v) for v in params[k:p]),
        coefficient_ci_low=tuple(float(v) for v in low[k:]),
        coefficient_ci_high=tuple(float(v) for v in high[k:]),
        ties=ties,
        tie_parameter=nu,
        n_comparisons=len(y),
        log_likelihood=float(-value),
        n_resamples=n_resamples,
        n_resamples_without_mle=int(failed),
        gradient_norm=float(np.abs(grad).max()),
    )
