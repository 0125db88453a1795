"""Calibration of automatic metrics against humans: standardise several weak metrics and fit a ridge
(or, with ``alpha=0``, least-squares) combination on a calibration split only, then report its
held-out correlation with the humans and its gain over the best single metric.

Nothing computed from the held-out rows reaches the fit: the standardisation, the weights and the
choice of the best single metric all come from the calibration rows alone.
"""

from dataclasses import asdict, dataclass, field

import numpy as np

from ._resampling import as_float_array, check_choice, codes
from .correlation import METHODS, correlation_rows
from .errors import InsufficientDataError


@dataclass(frozen=True)
class Calibrator:
    r"""A fitted linear calibrator: :math:`\hat y = b + \sum_k w_k (x_k - \mu_k) / \sigma_k`.

    ``means`` and ``scales`` are :math:`\mu_k, \sigma_k` of the calibration rows; ``weights`` act
    on the standardised metrics, so their sizes compare across metrics.
    """

    features: tuple[str, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float
    alpha: float

    def predict(self, features) -> np.ndarray:
        """Calibrated scores of rows of ``features`` (n_rows, n_features), in ``self.features``
        order; NaN for a row missing any metric."""
        x = as_float_array(features, "features", ndim=2)
        if x.shape[1] != len(self.features):
            raise ValueError(
                f"features must have {len(self.features)} columns ({', '.join(self.features)}); got {x.shape[1]}"
            )
        z = (x - np.array(self.means)) / np.array(self.scales)
        return self.intercept + z @ np.array(self.weights)

    def raw_coefficients(self) -> tuple[float, tuple[float, ...]]:
        """(intercept, per-metric slopes) on the metrics' own scales."""
        slopes = np.array(self.weights) / np.array(self.scales)
        return float(self.intercept - slopes @ np.array(self.means)), tuple(float(v) for v in slopes)

    def as_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict) -> "Calibrator":
        return cls(
            tuple(data["features"]),
            tuple(data["means"]),
            tuple(data["scales"]),
            tuple(data["weights"]),
            float(data["intercept"]),
            float(data["alpha"]),
        )


@dataclass(frozen=True)
class CalibrationReport:
    """What a calibration did and how well it holds on rows it never saw.

    ``held_out`` maps each method to the calibrated score's correlation with the humans on the
    held-out rows (global level: every output pooled); ``single`` the same for each metric alone,
    oriented by the sign it had on the calibration rows; ``best_single`` is the metric with the
    highest absolute Pearson correlation *on the calibration rows*; ``gain`` is
    ``held_out − single[best_single]`` per method. With ``k_folds`` every row is held out once and
    the correlations are those of the cross-validated predictions; ``calibrator`` is then fitted on
    all rows. ``gain_p_value`` and ``gain_ci`` (with ``n_resamples``) come from a paired bootstrap
    over the held-out items (see :func:`gain_bootstrap`); empty without resampling.
    """

    calibrator: Calibrator
    level: str
    n_calibration: int
    n_held_out: int
    n_dropped: int
    k_folds: int | None
    held_out: dict
    single: dict
    best_single: str
    gain: dict
    fold_held_out: list = field(default_factory=list)
    gain_p_value: dict = field(default_factory=dict)
    gain_ci: dict = field(default_factory=dict)
    n_resamples: int = 0

    def as_dict(self) -> dict:
        data = asdict(self)
        data["calibrator"] = self.calibrator.as_dict()
        return data


def fit_calibrator(features, target, *, names, alpha=1.0) -> Calibrator:
    r"""Fit a ridge calibrator on standardised metrics.

    Parameters
    ----------
    features : array_like, shape (n_rows, n_features)
        Metric scores of each output (no NaN: drop incomplete rows first).
    target : array_like, shape (n_rows,)
        The human score of each output.
    names : sequence of str, length n_features
        Metric names, kept in the calibrator.
    alpha : float
        Ridge penalty on the standardised weights; 0 gives ordinary least squares.

    Returns
    -------
    Calibrator

    Raises
    ------
    InsufficientDataError
        Fewer rows than two, or (without a penalty) fewer rows than features + 1.
    ValueError
        Shapes that disagree, NaN, a negative ``alpha``.

    Notes
    -----
    With :math:`Z` the metrics standardised by their calibration means and standard deviations
    (population form; a constant metric keeps scale 1 and gets weight 0) and :math:`y` the human
    scores, the ridge solution [1]_ is

    .. math:: w = (Z^\top Z + \alpha I)^{-1} Z^\top (y - \bar y), \qquad b = \bar y.

    References
    ----------
    .. [1] A. E. Hoerl and R. W. Kennard, "Ridge Regression: Biased Estimation for Nonorthogonal
       Problems", *Technometrics* 12(1), 1970, https://doi.org/10.1080/00401706.1970.10488634.

    Examples
    --------
    Anscombe's (1973) first data set: the published least-squares line is
    :math:`y = 3.00 + 0.500\,x`.

    >>> x = [[10], [8], [13], [9], [11], [14], [6], [4], [12], [7], [5]]
    >>> y = [8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68]
    >>> b, (slope,) = fit_calibrator(x, y, names=["x"], alpha=0).raw_coefficients()
    >>> round(b, 2), round(slope, 3)
    (3.0, 0.5)
    """
    x = as_float_array(features, "features", ndim=2)
    y = as_float_array(target, "target")
    names = tuple(str(n) for n in names)
    if x.shape[0] != len(y):
        raise ValueError(f"features has {x.shape[0]} rows but target has {len(y)}")
    if len(names) != x.shape[1]:
        raise ValueError(f"names must name each of the {x.shape[1]} features; got {len(names)}")
    if np.isnan(x).any() or np.isnan(y).any():
        raise ValueError("features and target must not hold NaN: leave incomplete rows out")
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or alpha < 0:
        raise ValueError(f"alpha must be a non-negative number, got {alpha!r}")
    if len(y) < 2 or (alpha == 0 and len(y) < x.shape[1] + 1):
        raise InsufficientDataError(f"{len(y)} rows are too few to fit {x.shape[1]} weights")
    means = x.mean(axis=0)
    scales = x.std(axis=0)
    scales = np.where(scales > 0, scales, 1.0)
    z = (x - means) / scales
    y_mean = y.mean()
    gram = z.T @ z + alpha * np.eye(x.shape[1])
    weights = np.linalg.lstsq(gram, z.T @ (y - y_mean), rcond=None)[0]
    return Calibrator(
        names,
        tuple(float(v) for v in means),
        tuple(float(v) for v in scales),
        tuple(float(v) for v in weights),
        float(y_mean),
        float(alpha),
    )


def _correlations(score: np.ndarray, target: np.ndarray, methods) -> dict:
    return {m: float(correlation_rows(score[None, :], target[None, :], method=m)[0]) for m in methods}


def _best_single(x: np.ndarray, y: np.ndarray, names) -> tuple[int, np.ndarray]:
    """(index of the metric with the largest |Pearson r| on these rows, sign of every metric's r)."""
    r = correlation_rows(x.T, np.broadcast_to(y, x.T.shape), method="pearson")
    r = np.nan_to_num(r)
    return int(np.argmax(np.abs(r))), np.where(r < 0, -1.0, 1.0)


def gain_bootstrap(calibrated, single, target, groups, *, methods, n_resamples, rng, confidence=0.95):
    r"""Paired bootstrap of the gain ``r(calibrated, human) − r(single, human)`` over items.

    Each resample draws the held-out items with replacement (an item's outputs stay together)
    and recomputes both correlations on the same rows. The one-sided p-value is the share of
    resamples where the calibrated score does not beat the single metric,
    :math:`(1 + \#\{g^* \le 0\}) / (B + 1)` (the paired bootstrap of Koehn, EMNLP 2004, with the
    add-one correction of Davison and Hinkley 1997, eq. 4.11); the interval is the percentile one.

    Returns
    -------
    (dict, dict)
        ``{method: p}`` and ``{method: [low, high]}``.
    """
    _, codes_ = np.unique(np.asarray(groups), return_inverse=True)
    rows_of = [np.flatnonzero(codes_ == g) for g in range(codes_.max() + 1)]
    samples = np.full((n_resamples, len(methods)), np.nan)
    for b in range(n_resamples):
        rows = np.concatenate([rows_of[g] for g in rng.integers(0, len(rows_of), len(rows_of))])
        ours = _correlations(calibrated[rows], target[rows], methods)
        theirs = _correlations(single[rows], target[rows], methods)
        samples[b] = [ours[m] - theirs[m] for m in methods]
    tail = (1 - confidence) / 2
    p_values, intervals = {}, {}
    for k, m in enumerate(methods):
        gains = samples[:, k][~np.isnan(samples[:, k])]
        # a gain within rounding of 0 (a calibrator equal to the metric up to scale) is no gain
        p_values[m] = float((1 + (gains <= 1e-12).sum()) / (len(gains) + 1))
        intervals[m] = [float(v) for v in np.quantile(gains, [tail, 1 - tail])] if len(gains) else [None, None]
    return p_values, intervals


def calibrate(
    features,
    target,
    *,
    names,
    groups,
    calibration=None,
    held_out_share=0.3,
    k_folds=None,
    alpha=1.0,
    methods=METHODS,
    rng=None,
    n_resamples=0,
) -> CalibrationReport:
    r"""Fit a calibrator on a calibration split and report it on the held-out split.

    Parameters
    ----------
    features : array_like, shape (n_rows, n_features)
        Metric scores per output; rows with NaN (or a NaN target) are dropped and counted.
    target : array_like, shape (n_rows,)
        Human score per output.
    names : sequence of str
        Metric names.
    groups : array_like, shape (n_rows,)
        The item of each output. Splits and folds keep an item's outputs together, so that no
        input is seen on both sides.
    calibration : array_like of bool, shape (n_rows,), optional
        Which rows form the calibration split (a fixed, documented split). Without it, a share
        ``held_out_share`` of the items is drawn at random with ``rng`` for the held-out split.
    held_out_share : float
        Share of items held out when ``calibration`` is not given.
    k_folds : int, optional
        k-fold cross-validation over items instead of a single split.
    alpha : float
        Ridge penalty (see :func:`fit_calibrator`).
    methods : sequence of {"pearson", "spearman", "kendall"}
        Correlations to report (Kendall is :math:`\tau_b`).
    rng : numpy.random.Generator
        Needed to draw a split or folds, and to resample.
    n_resamples : int
        Bootstrap resamples of the held-out items for the gain's p-value and interval (0: none).

    Returns
    -------
    CalibrationReport

    Raises
    ------
    InsufficientDataError
        Too few complete rows on either side of the split.

    Notes
    -----
    The held-out rows influence nothing that is fitted: means, scales, weights and the choice and
    sign of the best single metric are functions of the calibration rows only (a test changes
    every held-out value and checks that the fitted calibrator stays the same).

    Examples
    --------
    A metric pair whose sum tracks the humans beats either metric alone:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.normal(size=400), rng.normal(size=400)
    >>> human = a + b + rng.normal(scale=0.5, size=400)
    >>> r = calibrate(np.column_stack([a, b]), human, names=["a", "b"], groups=np.arange(400),
    ...               rng=np.random.default_rng(1), methods=["pearson"])
    >>> r.held_out["pearson"] > r.single[r.best_single]["pearson"] + 0.2
    True
    """
    for m in methods:
        check_choice("method", m, METHODS)
    x = as_float_array(features, "features", ndim=2)
    y = as_float_array(target, "target")
    names = [str(n) for n in names]
    _, group_codes = codes(groups, "groups")
    if not x.shape[0] == len(y) == len(group_codes):
        raise ValueError(
            f"features, target and groups must have one row per output; got {x.shape[0]}, {len(y)}, {len(group_codes)}"
        )
    complete = ~np.isnan(x).any(axis=1) & ~np.isnan(y)
    n_groups = group_codes.max() + 1 if len(group_codes) else 0

    if k_folds is not None:
        if isinstance(k_folds, bool) or not isinstance(k_folds, int) or not 2 <= k_folds <= n_groups:
            raise ValueError(f"k_folds must be a whole number from 2 to the number of items ({n_groups})")
        if not isinstance(rng, np.random.Generator):
            raise ValueError("rng must be a numpy.random.Generator to draw the folds")
        fold_of_group = rng.permutation(np.arange(n_groups) % k_folds)
        fold = fold_of_group[group_codes]
        predictions = np.full(len(y), np.nan)
        singles = np.full((len(y), len(names)), np.nan)
        fold_held_out = []
        for f in range(k_folds):
            train, test = complete & (fold != f), complete & (fold == f)
            if test.sum() < 2:
                continue
            model = fit_calibrator(x[train], y[train], names=names, alpha=alpha)
            predictions[test] = model.predict(x[test])
            _, signs = _best_single(x[train], y[train], names)
            singles[test] = x[test] * signs
            fold_held_out.append(_correlations(predictions[test], y[test], methods))
        evaluated = complete & ~np.isnan(predictions)
        best, _ = _best_single(x[complete], y[complete], names)
        test_rows, test_predictions, test_single = evaluated, predictions[evaluated], singles[evaluated, best]
        calibrator = fit_calibrator(x[complete], y[complete], names=names, alpha=alpha)
        held_out = _correlations(predictions[evaluated], y[evaluated], methods)
        single = {n: _correlations(singles[evaluated, k], y[evaluated], methods) for k, n in enumerate(names)}
        n_cal, n_held = int(complete.sum()), int(evaluated.sum())
    else:
        if calibration is None:
            if not isinstance(rng, np.random.Generator):
                raise ValueError("rng must be a numpy.random.Generator to draw the split (or pass calibration=)")
            if not 0 < held_out_share < 1:
                raise ValueError(f"held_out_share must lie strictly between 0 and 1, got {held_out_share!r}")
            held_groups = rng.permutation(n_groups)[: max(1, round(held_out_share * n_groups))]
            is_cal = ~np.isin(group_codes, held_groups)
        else:
            is_cal = np.asarray(calibration, dtype=bool)
            if is_cal.shape != y.shape:
                raise ValueError(f"calibration must hold one boolean per row ({len(y)})")
            mixed = np.unique(group_codes[is_cal]).tolist()
            if np.isin(group_codes[~is_cal], mixed).any():
                raise ValueError("calibration splits an item: all outputs of an item must be on the same side")
        train, test = complete & is_cal, complete & ~is_cal
        if train.sum() < 2 or test.sum() < 2:
            raise InsufficientDataError(
                f"the split leaves {int(train.sum())} complete calibration rows and "
                f"{int(test.sum())} held-out rows; each side needs at least two"
            )
        calibrator = fit_calibrator(x[train], y[train], names=names, alpha=alpha)
        best, signs = _best_single(x[train], y[train], names)
        held_out = _correlations(calibrator.predict(x[test]), y[test], methods)
        single = {n: _correlations(x[test, k] * signs[k], y[test], methods) for k, n in enumerate(names)}
        test_rows, test_predictions, test_single = test, calibrator.predict(x[test]), x[test, best] * signs[best]
        fold_held_out = []
        n_cal, n_held = int(train.sum()), int(test.sum())

    best_name = names[best]
    gain = {m: held_out[m] - single[best_name][m] for m in methods}
    p_values, intervals = {}, {}
    if n_resamples:
        if not isinstance(rng, np.random.Generator):
            raise ValueError("rng must be a numpy.random.Generator to resample")
        p_values, intervals = gain_bootstrap(
            test_predictions,
            test_single,
            y[test_rows],
            group_codes[test_rows],
            methods=list(methods),
            n_resamples=n_resamples,
            rng=rng,
        )
    return CalibrationReport(
        calibrator,
        "global",
        n_cal,
        n_held,
        int((~complete).sum()),
        k_folds,
        held_out,
        single,
        best_name,
        gain,
        fold_held_out,
        p_values,
        intervals,
        int(n_resamples),
    )
