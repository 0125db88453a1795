"""Prediction-powered inference [1]_ for a mean (a system's score, a win rate, a paired difference):
many judge-rated units plus a small human-rated subset give an interval that is valid however
biased the judge is, and narrower than the humans alone when the judge tracks them.

References
----------
.. [1] A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic,
   "Prediction-powered inference", Science 382(6671), 2023, https://doi.org/10.1126/science.adi6000.
.. [2] A. N. Angelopoulos, J. C. Duchi and T. Zrnic, "PPI++: Efficient Prediction-Powered
   Inference", 2023, https://arxiv.org/abs/2311.01453.
"""

from dataclasses import dataclass

import numpy as np
from scipy import special

from ._resampling import as_float_array, check_confidence
from .errors import InsufficientDataError


@dataclass(frozen=True)
class MeanEstimate:
    """A mean with its standard error and normal-theory interval over ``n`` units."""

    value: float
    std_error: float
    ci_low: float
    ci_high: float
    n: int


@dataclass(frozen=True)
class PredictionPoweredMean:
    """The prediction-powered estimate beside the humans-only and judge-only ones.

    ``effective_n`` is how many human-rated units a humans-only estimate would need for the
    prediction-powered standard error; ``n_saved`` = ``effective_n`` − ``n_human`` (negative when
    the judge adds nothing). ``judge_only`` treats the judge as if it were the humans: its
    interval is valid only for an unbiased judge and is shown as the counterfactual."""

    prediction_powered: MeanEstimate
    human_only: MeanEstimate
    judge_only: MeanEstimate
    tuning: float
    n_human: int
    n_judge_only: int
    effective_n: float
    n_saved: float


def _normal(value: float, std_error: float, n: int, z: float) -> MeanEstimate:
    return MeanEstimate(float(value), float(std_error), float(value - z * std_error), float(value + z * std_error), n)


def prediction_powered_mean(
    human, judge_on_human, judge_only, *, confidence: float = 0.95, power_tuning: bool = True
) -> PredictionPoweredMean:
    r"""Prediction-powered estimate of a mean with a normal interval [1]_, power-tuned as in [2]_.

    Parameters
    ----------
    human : array_like, shape (n,)
        The human value of each human-rated unit (e.g. the mean rating of an output).
    judge_on_human : array_like, shape (n,)
        The judge's value of the same units.
    judge_only : array_like, shape (N,)
        The judge's value of the units no human rated.
    confidence : float
    power_tuning : bool
        Estimate the weight :math:`\lambda` given to the judge (PPI++ [2]_); False fixes
        :math:`\lambda = 1`, the original estimator of [1]_.

    Returns
    -------
    PredictionPoweredMean

    Raises
    ------
    InsufficientDataError
        Fewer than two human-rated units or fewer than two judge-only units.

    Notes
    -----
    With :math:`f` the judge, :math:`Y` the humans, :math:`n` human-rated and :math:`N` judge-only
    units, the estimate is the judge's mean corrected by the rectifier, the humans' mean
    disagreement with the judge on the units both rated:

    .. math::
        \hat\theta = \lambda \frac{1}{N}\sum_{j} f(\tilde X_j)
                     + \frac{1}{n}\sum_{i} \bigl(Y_i - \lambda f(X_i)\bigr), \qquad
        \widehat{\mathrm{se}}^2 = \frac{\lambda^2 \hat\sigma^2_{f,N}}{N}
                     + \frac{\hat\sigma^2_{Y - \lambda f}}{n}.

    The interval is :math:`\hat\theta \pm z_{1-\alpha/2}\,\widehat{\mathrm{se}}`. The tuned weight
    minimising the variance is
    :math:`\hat\lambda = \widehat{\mathrm{Cov}}(Y, f) / ((1 + n/N)\,\widehat{\mathrm{Var}}(f))`,
    clipped to [0, 1] ([2]_, Example 6.1), with the covariance over the human-rated units and the
    variance over every judged unit, the estimators the authors' ``ppi-python`` package uses (a
    test checks both estimators against it). :math:`\lambda = 0` is the humans-only mean.

    Examples
    --------
    A judge that rates everything one point too high: its own mean is off by one, the
    prediction-powered mean is not.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.normal(3.0, 1.0, 5000)
    >>> judge = truth + 1.0 + rng.normal(0, 0.3, 5000)
    >>> r = prediction_powered_mean(truth[:200], judge[:200], judge[200:])
    >>> round(r.judge_only.value, 1), round(r.prediction_powered.value, 1)
    (4.0, 3.0)
    >>> bool(r.prediction_powered.std_error < r.human_only.std_error), bool(r.n_saved > 0)
    (True, True)
    """
    confidence = check_confidence(confidence)
    y = as_float_array(human, "human")
    f = as_float_array(judge_on_human, "judge_on_human")
    f_only = as_float_array(judge_only, "judge_only")
    if len(y) != len(f):
        raise ValueError(f"human and judge_on_human must rate the same units; got {len(y)} and {len(f)}")
    if np.isnan(y).any() or np.isnan(f).any() or np.isnan(f_only).any():
        raise ValueError("leave out units without a value: NaN is not a rating here")
    n, big_n = len(y), len(f_only)
    if n < 2:
        raise InsufficientDataError(f"prediction-powered estimates need two human-rated units; got {n}")
    if big_n < 2:
        raise InsufficientDataError(f"prediction-powered estimates need two judge-only units; got {big_n}")
    z = float(special.ndtri(0.5 + confidence / 2.0))
    tuning = 1.0
    if power_tuning:
        pooled_var = np.var(np.concatenate([f, f_only]), ddof=1)
        cov = np.mean((y - y.mean()) * (f - f.mean()))
        tuning = float(np.clip(cov / ((1.0 + n / big_n) * pooled_var), 0.0, 1.0)) if pooled_var > 0 else 0.0
    value = tuning * f_only.mean() + np.mean(y - tuning * f)
    se = np.sqrt(tuning**2 * np.var(f_only) / big_n + np.var(y - tuning * f) / n)
    human_se = np.std(y, ddof=1) / np.sqrt(n)
    every = np.concatenate([f, f_only])
    effective = float(np.var(y) / se**2) if se > 0 else float("inf")
    return PredictionPoweredMean(
        prediction_powered=_normal(value, se, n + big_n, z),
        human_only=_normal(y.mean(), human_se, n, z),
        judge_only=_normal(every.mean(), np.std(every, ddof=1) / np.sqrt(len(every)), len(every), z),
        tuning=tuning,
        n_human=n,
        n_judge_only=big_n,
        effective_n=effective,
        n_saved=effective - n,
    )
