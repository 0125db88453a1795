"""The tests quality control runs on one rater's screens: position bias and damaged copies (controls)."""

import numpy as np
from scipy.stats import binomtest, mannwhitneyu


def position_bias_test(first_wins: int, decided: int, chance: float) -> float:
    """Two-sided exact binomial p-value of ``first_wins`` wins of the output shown first among ``decided``
    screens (ties left out), when it wins a share ``chance`` of them by chance (1/k of k outputs).

    Examples
    --------
    >>> round(position_bias_test(7, 10, 0.5), 6)
    0.34375
    """
    return float(binomtest(first_wins, decided, chance).pvalue)


def sign_test_greater(successes: int, trials: int) -> float:
    """One-sided exact sign test: the p-value of ``successes`` or more in ``trials`` fair coin flips.

    Quality control asks whether the intact output beats its damaged copy more often than chance, and, as
    an exact McNemar test on the discordant pairs, whether the damage is marked more often than the same
    place of the original.

    Examples
    --------
    >>> sign_test_greater(7, 10)
    0.171875
    """
    return float(binomtest(successes, trials, 0.5, alternative="greater").pvalue)


def degraded_scores_test(degraded, originals) -> float:
    """One-sided Mann–Whitney U p-value: small when the damaged copies' scores are lower than the originals'.

    scipy's method: exact for small samples without ties, else the normal approximation with the tie and
    continuity corrections.

    Examples
    --------
    >>> round(degraded_scores_test([1, 2, 3], [4, 5, 6]), 4)
    0.05
    """
    return float(
        mannwhitneyu(np.asarray(degraded, dtype=float), np.asarray(originals, dtype=float), alternative="less").pvalue
    )
