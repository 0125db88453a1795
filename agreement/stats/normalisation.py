"""Per-rater normalisation of reliability data before an interval coefficient."""

import numpy as np

from ._validation import as_reliability_data


def rater_zscores(reliability_data) -> np.ndarray:
    r"""Each rater's ratings as z-scores of that rater's own ratings: :math:`(x - \bar x_r) / s_r`.

    Raters who use a slider or a scale differently (one in its middle, another across all of it) then
    agree on an interval coefficient when they order and space the units alike, as RankME's authors
    normalise per rater before comparing. The mean and the population standard deviation (``ddof=0``)
    are each rater's over the units they rated; a rater with one rating or a constant rater gets 0s
    (scipy.stats.zscore gives NaN there, which would drop the rater's ratings).

    Parameters
    ----------
    reliability_data : array_like, shape (n_raters, n_units)
        Ratings, NaN (or None) for "not rated"; NaN stays NaN.

    Returns
    -------
    numpy.ndarray, shape (n_raters, n_units)

    Examples
    --------
    >>> rater_zscores([[1, 2, 3], [10, 20, float("nan")], [4, 4, 4]]).round(4).tolist()
    [[-1.2247, 0.0, 1.2247], [-1.0, 1.0, nan], [0.0, 0.0, 0.0]]
    """
    data = as_reliability_data(reliability_data)
    rated = ~np.isnan(data)
    n = rated.sum(axis=1, keepdims=True)
    filled = np.where(rated, data, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = filled.sum(axis=1, keepdims=True) / n
        sd = np.sqrt(np.where(rated, (data - mean) ** 2, 0.0).sum(axis=1, keepdims=True) / n)
    sd[~(sd > 0)] = 1.0
    return (data - mean) / sd
