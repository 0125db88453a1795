"""Verbal labels for coefficients (Landis & Koch; Krippendorff's thresholds), always with their caveat."""

import math

from .results import Interpretation

LANDIS_KOCH_CAVEAT = (
    "Landis and Koch (1977) called their bands 'clearly arbitrary'; they were proposed for kappa on "
    "one medical data set. Kappa and alpha depend on prevalence and on the number of categories, so "
    "compare a value with what your task and its prevalence allow, and report the interval, not the "
    "label alone."
)
KRIPPENDORFF_CAVEAT = (
    "Krippendorff (2004) suggests relying on data with alpha >= .800 and drawing only tentative "
    "conclusions for .667 <= alpha < .800; the cut-offs should follow from the cost of wrong "
    "conclusions, and the lower confidence limit, not the point estimate, should clear them."
)
_LANDIS_KOCH = (
    (-1.0, 0.0, "poor"),
    (0.0, 0.2, "slight"),
    (0.2, 0.4, "fair"),
    (0.4, 0.6, "moderate"),
    (0.6, 0.8, "substantial"),
    (0.8, 1.0, "almost perfect"),
)


def landis_koch(value):
    r"""The Landis & Koch (1977) band of a kappa-type coefficient, with its caveat.

    Parameters
    ----------
    value : float
        A coefficient in [-1, 1] (kappa, AC1, alpha, ...).

    Returns
    -------
    Interpretation
        ``label`` ("poor", "slight", "fair", "moderate", "substantial", "almost perfect"), the
        band's limits and ``caveat`` (:data:`LANDIS_KOCH_CAVEAT`), to be shown with it.

    Raises
    ------
    ValueError
        NaN or a value outside [-1, 1].

    Notes
    -----
    .. math::

        \kappa < 0 \text{ poor};\ [0, .20] \text{ slight};\ (.20, .40] \text{ fair};\
        (.40, .60] \text{ moderate};\ (.60, .80] \text{ substantial};\
        (.80, 1] \text{ almost perfect}

    References
    ----------
    .. [1] Landis, J. R., & Koch, G. G. (1977). The measurement of observer agreement for
       categorical data. Biometrics, 33(1), 159-174. https://doi.org/10.2307/2529310

    Examples
    --------
    Fleiss' diagnoses (kappa 0.430) and Shrout & Fleiss's ICC(3,4) (0.91):

    >>> from agreement.stats.interpretation import landis_koch
    >>> str(landis_koch(0.430)), str(landis_koch(0.91))
    ('moderate', 'almost perfect')
    """
    x = _coefficient(value)
    # bands are closed on the right ("0.21-0.40" in [1]), except poor, which is kappa < 0
    low, high, label = _LANDIS_KOCH[0] if x < 0 else next(b for b in _LANDIS_KOCH[1:] if x <= b[1])
    return Interpretation(label=label, lower=low, upper=high, scheme="Landis & Koch (1977)", caveat=LANDIS_KOCH_CAVEAT)


def krippendorff_guideline(value):
    r"""Krippendorff's reading of alpha: reliable (>= .800), tentative (>= .667) or unreliable.

    Parameters
    ----------
    value : float
        Alpha, in [-1, 1].

    Returns
    -------
    Interpretation
        With ``caveat`` :data:`KRIPPENDORFF_CAVEAT`.

    Raises
    ------
    ValueError
        NaN or a value outside [-1, 1].

    Notes
    -----
    .. math::

        \alpha \ge .800 \text{ reliable};\quad .667 \le \alpha < .800 \text{ tentative};\quad
        \text{else unreliable}

    References
    ----------
    .. [1] Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology, 2nd
       ed., Sage, p. 241.

    Examples
    --------
    Krippendorff's example: nominal alpha 0.743 is only tentative, interval 0.849 reliable.

    >>> from agreement.stats.interpretation import krippendorff_guideline
    >>> str(krippendorff_guideline(0.743)), str(krippendorff_guideline(0.849))
    ('tentative', 'reliable')
    """
    x = _coefficient(value)
    if x >= 0.800:
        label, low, high = "reliable", 0.800, 1.0
    elif x >= 0.667:
        label, low, high = "tentative", 0.667, 0.800
    else:
        label, low, high = "unreliable", -1.0, 0.667
    return Interpretation(label=label, lower=low, upper=high, scheme="Krippendorff (2004)", caveat=KRIPPENDORFF_CAVEAT)


def _coefficient(value) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"expected a coefficient in [-1, 1]; got {value!r}") from None
    if math.isnan(x) or not -1.0 <= x <= 1.0:
        raise ValueError(f"expected a coefficient in [-1, 1]; got {value!r}")
    return x
