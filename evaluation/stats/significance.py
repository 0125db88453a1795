"""Significance of differences between systems judged on the same units: the paired bootstrap test,
approximate randomisation, and Holm's correction across all pairs."""

from dataclasses import dataclass

import numpy as np

from ._resampling import as_float_array, bootstrap_counts, check_choice, check_resampling
from .errors import InsufficientDataError

TESTS = ("auto", "bootstrap", "randomization")
# "auto" tests studies with fewer units than this by randomisation: the paired bootstrap test rejected
# a true H0 10% of the time at 10 units, 6.1-6.4% at 25-50 (nominal 5%), randomisation 4.5-5.4%; from
# 100 units on both are within a SE (tests/bench/bench_paired_test_size.py, BENCHMARKS.md).
RANDOMIZATION_BELOW_UNITS = 100
# The exact randomisation test holds all 2^n sign vectors at once: 2^16 x 16 floats is 8 MB.
EXACT_MAX_UNITS = 16


@dataclass(frozen=True)
class PairedTestResult:
    """``difference`` is mean(a) − mean(b) over the ``n_units`` units both were scored on; ``test``
    is the test that ran (``"auto"`` resolved) and ``exact`` whether every sign flip was enumerated
    (``n_resamples`` is then :math:`2^n`)."""

    difference: float
    p_value: float
    n_units: int
    n_resamples: int
    test: str
    exact: bool = False


@dataclass(frozen=True)
class SystemComparison:
    system_a: object
    system_b: object
    difference: float
    n_units: int
    p_value: float
    p_holm: float
    significant: bool


def _paired(a, b) -> tuple[np.ndarray, np.ndarray]:
    x, y = as_float_array(a, "a"), as_float_array(b, "b")
    if len(x) != len(y):
        raise ValueError(f"a and b must hold one score per unit; got lengths {len(x)} and {len(y)}")
    both = ~np.isnan(x) & ~np.isnan(y)
    if both.sum() < 2:
        raise InsufficientDataError("a paired test needs at least two units scored for both systems")
    return x[both], y[both]


def paired_test(a, b, *, test="auto", n_resamples=10_000, rng=None) -> PairedTestResult:
    r"""Two-sided test of :math:`H_0`: systems a and b have the same mean score over units.

    Parameters
    ----------
    a, b : array_like, shape (n_units,)
        Each system's score on each unit (e.g. its mean rating on an item); NaN where a system
        was not scored, and such units are left out of the pair.
    test : {"auto", "bootstrap", "randomization"}
        ``"bootstrap"``: paired bootstrap over units [1]_ [2]_; ``"randomization"``: approximate
        randomisation, swapping a and b within each unit with probability 1/2 [3]_ [4]_, exact
        (all :math:`2^n` swaps) when :math:`2^n \le` ``n_resamples`` and :math:`n \le 16`.
        ``"auto"`` (default): randomisation below ``RANDOMIZATION_BELOW_UNITS`` (100) units, where the bootstrap test
        rejects a true null too often (11.7% at 10 units, 6.7% at 25, for a nominal 5%), the
        bootstrap from there on.
    n_resamples : int
        Resamples (or random swaps); the most sign flips an exact test may enumerate.
    rng : numpy.random.Generator

    Returns
    -------
    PairedTestResult

    Raises
    ------
    InsufficientDataError
        Fewer than two units scored for both systems.

    Notes
    -----
    With :math:`d_u = a_u - b_u` and :math:`\hat\delta = \bar d`, the bootstrap test shifts the
    resampled means to the null ([1]_ §16.4) and the randomisation test flips signs:

    .. math:: p_\text{boot} = \frac{1 + \#\{|\bar d^* - \hat\delta| \ge |\hat\delta|\}}{1 + B}, \qquad
              p_\text{AR} = \frac{1 + \#\{|\overline{s d}^*| \ge |\hat\delta|\}}{1 + B},

    where :math:`s_u = \pm 1` at random; the +1 keeps the p-value valid for a finite :math:`B` [4]_.
    The exact test counts over all :math:`2^n` sign vectors instead, the identity among them.
    The bootstrap test's null distribution comes from the data's own mean-shifted resamples,
    which on few units are too narrow (Efron & Tibshirani [1]_ §16.4 use it with large
    :math:`n`); randomisation is exact under the symmetry of :math:`d_u` under :math:`H_0`.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall, 1993.
    .. [2] P. Koehn, "Statistical Significance Tests for Machine Translation Evaluation", EMNLP
       2004, https://aclanthology.org/W04-3250/.
    .. [3] E. W. Noreen, *Computer-Intensive Methods for Testing Hypotheses*, Wiley, 1989.
    .. [4] S. Riezler and J. T. Maxwell, "On Some Pitfalls in Automatic Evaluation and
       Significance Testing for MT", ACL 2005 workshop, https://aclanthology.org/W05-0908/.

    Examples
    --------
    Student's sleep data (R ``sleep``): the exact paired permutation test enumerates the
    :math:`2^{10}` sign flips of the differences, and only 4 of them (all equal signs, either sign
    of the one zero difference) are as extreme, so :math:`p = 4/1024 = 0.0039`.

    >>> import numpy as np
    >>> drug1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
    >>> drug2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
    >>> r = paired_test(drug2, drug1, rng=np.random.default_rng(1))
    >>> round(r.difference, 2), r.test, r.exact, round(r.p_value, 4)
    (1.58, 'randomization', True, 0.0039)
    """
    check_choice("test", test, TESTS)
    n_resamples = check_resampling(n_resamples, rng)
    if n_resamples == 0:
        raise ValueError("a resampling test needs n_resamples > 0")
    x, y = _paired(a, b)
    d = x - y
    delta = float(d.mean())
    n = len(d)
    if test == "auto":
        test = "randomization" if n < RANDOMIZATION_BELOW_UNITS else "bootstrap"
    extreme = 0
    if test == "randomization" and n <= EXACT_MAX_UNITS and 2**n <= n_resamples:
        # every sign vector once: bit u of row r is the sign of unit u
        signs = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2.0 - 1.0
        extreme = int((np.abs(signs @ d / n) >= abs(delta) - 1e-12).sum())
        return PairedTestResult(delta, extreme / 2**n, n, 2**n, test, exact=True)
    if test == "bootstrap":
        for w in bootstrap_counts(n, n_resamples, rng):
            extreme += int((np.abs(w @ d / n - delta) >= abs(delta) - 1e-12).sum())
    else:
        done = 0
        while done < n_resamples:
            size = min(n_resamples - done, max(1, 4_000_000 // n))
            signs = rng.integers(0, 2, size=(size, n)) * 2.0 - 1.0
            extreme += int((np.abs(signs @ d / n) >= abs(delta) - 1e-12).sum())
            done += size
    return PairedTestResult(delta, (1 + extreme) / (1 + n_resamples), n, n_resamples, test)


def holm(p_values) -> np.ndarray:
    r"""Holm's step-down adjusted p-values [1]_, controlling the family-wise error rate.

    Parameters
    ----------
    p_values : array_like, shape (m,)

    Returns
    -------
    numpy.ndarray, shape (m,)
        :math:`\tilde p_{(i)} = \max_{j \le i} \min\{1, (m - j + 1)\, p_{(j)}\}` in the original order.

    References
    ----------
    .. [1] S. Holm, "A Simple Sequentially Rejective Multiple Test Procedure", *Scandinavian
       Journal of Statistics* 6(2), 1979, https://www.jstor.org/stable/4615733.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, 0.005]).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    p = as_float_array(p_values, "p_values")
    if ((p < 0) | (p > 1)).any() or np.isnan(p).any():
        raise ValueError("p-values must lie in [0, 1]")
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted
    return out


def compare_systems(
    scores, *, systems, test="auto", alpha=0.05, n_resamples=10_000, rng=None
) -> list[SystemComparison]:
    """Every pair of systems tested with :func:`paired_test`, Holm-corrected across the pairs.

    Parameters
    ----------
    scores : array_like, shape (n_units, n_systems)
        Each system's score per unit, NaN where it was not scored.
    systems : sequence, length n_systems
        Column names.
    test, n_resamples, rng
        As in :func:`paired_test`.
    alpha : float
        Family-wise error rate: ``significant`` is ``p_holm < alpha``.

    Returns
    -------
    list of SystemComparison
        Pairs in column order; pairs with fewer than two shared units are left out.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([[3, 1, 1], [4, 2, 1], [5, 2, 2], [4, 1, 2], [5, 3, 1], [4, 2, 2], [3, 2, 1],
    ...               [4, 1, 2], [5, 2, 3], [4, 3, 2]], float)
    >>> r = compare_systems(s, systems=["x", "y", "z"], test="randomization", n_resamples=2000,
    ...                     rng=np.random.default_rng(0))
    >>> [(c.system_a, c.system_b, round(c.difference, 2), c.significant) for c in r]
    [('x', 'y', 2.2, True), ('x', 'z', 2.4, True), ('y', 'z', 0.2, False)]
    """
    matrix = as_float_array(scores, "scores", ndim=2)
    names = list(systems)
    if len(names) != matrix.shape[1]:
        raise ValueError(f"systems must name each of the {matrix.shape[1]} columns; got {len(names)} names")
    results = []
    for p in range(len(names)):
        for q in range(p + 1, len(names)):
            try:
                r = paired_test(matrix[:, p], matrix[:, q], test=test, n_resamples=n_resamples, rng=rng)
            except InsufficientDataError:
                continue
            results.append((names[p], names[q], r))
    adjusted = holm([r.p_value for *_, r in results]) if results else np.empty(0)
    return [
        SystemComparison(a, b, r.difference, r.n_units, r.p_value, float(h), bool(h < alpha))
        for (a, b, r), h in zip(results, adjusted, strict=True)
    ]
