"""The alternative annotator test (alt-test) of Calderon, Reichart and Dror [1]_: can an automatic
judge take the place of the human raters? Leave each rater out in turn and ask whether the judge
represents the remaining raters at least as well as the left-out rater does, up to a cost margin ε.

References
----------
.. [1] N. Calderon, R. Reichart and R. Dror, "The Alternative Annotator Test for LLM-as-a-Judge:
   How to Statistically Justify Replacing Human Annotators with LLMs", ACL 2025, pp. 16051–16081,
   https://aclanthology.org/2025.acl-long.782/ (procedure as published in the authors'
   repository, https://github.com/nitaytech/AltTest).
.. [2] Y. Benjamini and D. Yekutieli, "The control of the false discovery rate in multiple testing
   under dependency", Annals of Statistics 29(4), 2001, https://doi.org/10.1214/aos/1013699998.
"""

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from ._resampling import as_float_array, check_choice
from .errors import InsufficientDataError

ALIGNMENTS = ("accuracy", "neg_rmse")
TESTS = ("t", "wilcoxon")
# the authors' defaults [1]: an item counts with two raters; a rater is tested on 30 items or more
# (the t-test's normality needs them); 50-100 items and three raters are what they recommend
MIN_RATERS_PER_ITEM = 2
MIN_ITEMS_PER_RATER = 30
# below 30 items the authors advise the Wilcoxon signed-rank test; under 7 items even a unanimous
# advantage cannot reach the corrected level (p = 2^-n), 10 is Concord's floor
MIN_ITEMS_WILCOXON = 10
# scipy's Wilcoxon test enumerates every sign flip up to this many differences (2^13 < its 9,999 resamples)
EXACT_WILCOXON_ITEMS = 13
RECOMMENDED_ITEMS = 50
RECOMMENDED_RATERS = 3


@dataclass(frozen=True)
class RaterComparison:
    """The judge against one left-out rater: ``judge_advantage`` is the share of the rater's items
    on which the judge aligns with the remaining raters at least as well as the rater does
    (ties count for both), ``rater_advantage`` the same for the rater; the test's statistic
    (``t_statistic`` holds Wilcoxon's signed-rank statistic when that test ran) and p-value, and
    whether the judge wins (the null rejected after the Benjamini–Yekutieli correction)."""

    rater: int
    group: object
    n_items: int
    judge_advantage: float
    rater_advantage: float
    t_statistic: float
    p_value: float
    judge_wins: bool


@dataclass(frozen=True)
class AltTestResult:
    """The alt-test over one group of items. ``winning_rate`` ω is the share of tested raters the
    judge wins against (it passes when ω ≥ 0.5); ``advantage_probability`` ρ the mean of the
    judge advantages, for comparing judges. ``skipped`` lists raters with fewer than
    ``min_items_per_rater`` usable items; ``notes`` says where the data are thinner than the
    authors advise."""

    group: object
    alignment: str
    epsilon: float
    q: float
    n_items: int
    n_raters: int
    winning_rate: float
    advantage_probability: float
    passed: bool
    comparisons: tuple[RaterComparison, ...]
    skipped: tuple[int, ...]
    notes: tuple[str, ...]
    test: str = "t"


def benjamini_yekutieli(p_values, *, q: float = 0.05) -> np.ndarray:
    r"""Which hypotheses the Benjamini–Yekutieli step-up procedure [2]_ rejects at FDR level q.

    Parameters
    ----------
    p_values : array_like, shape (m,)
        NaN p-values (an undefined test) are never rejected.
    q : float
        The false discovery rate to control, under any dependence between the tests.

    Returns
    -------
    numpy.ndarray of bool, shape (m,)

    Notes
    -----
    With the sorted p-values :math:`p_{(1)} \le \dots \le p_{(m)}` and
    :math:`c(m) = \sum_{i=1}^m 1/i`, reject :math:`H_{(1)}, \dots, H_{(k)}` for the *largest*
    :math:`k` with :math:`p_{(k)} \le \frac{k}{m} \frac{q}{c(m)}`. It steps up: a small p-value
    that misses its own threshold is still rejected when a larger one meets a later threshold.

    Examples
    --------
    The smaller p-value misses its threshold (0.0167), the larger meets its own (0.0333): both
    are rejected (a step-down procedure would stop at the first and reject neither).

    >>> benjamini_yekutieli([0.03, 0.02]).tolist()
    [True, True]
    """
    p = as_float_array(p_values, "p_values")
    if not 0 < q < 1:
        raise ValueError(f"q must be between 0 and 1 (exclusive), got {q!r}")
    m = len(p)
    rejected = np.zeros(m, dtype=bool)
    if m == 0:
        return rejected
    order = np.argsort(np.where(np.isnan(p), np.inf, p), kind="stable")
    thresholds = np.arange(1, m + 1) / m * q / np.sum(1.0 / np.arange(1, m + 1))
    below = np.flatnonzero(p[order] <= thresholds)
    if len(below):
        rejected[order[: below[-1] + 1]] = True
    return rejected


def _alignment(value: np.ndarray, others: np.ndarray, alignment: str) -> np.ndarray:
    """Per item, how well ``value`` (n_items,) agrees with the other raters (n_others, n_items,
    NaN = not rated): the share of them it equals, or minus the root mean squared difference [1]_."""
    rated = ~np.isnan(others)
    n = rated.sum(axis=0)
    if alignment == "accuracy":
        return ((others == value) & rated).sum(axis=0) / n
    return -np.sqrt(np.where(rated, (others - value) ** 2, 0.0).sum(axis=0) / n)


def _one_sided(d: np.ndarray, epsilon: float, test: str) -> tuple[float, float]:
    """(statistic, p) of H0: the rater's advantage d is at least epsilon, against H1: below it [1]_."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant differences: t = ±inf or NaN
        if test == "t":
            # scipy's ttest_1samp(d, epsilon, alternative="less") written out: its input handling took
            # nine tenths of a simulated study's time
            t = (d.mean() - epsilon) / np.sqrt(d.var(ddof=1) / len(d))
            return float(t), float(special.stdtr(len(d) - 1, t))
        elif np.all(d == epsilon):
            return float("nan"), float("nan")  # nothing left to rank once the zeros are dropped
        elif len(d) <= EXACT_WILCOXON_ITEMS:
            return _signed_rank_exact(d - epsilon)
        else:
            # scipy drops zero differences (Wilcoxon's convention); d takes three values, so ranks
            # tie: beyond 13 items the normal approximation with the tie-corrected variance
            r = stats.wilcoxon(d - epsilon, alternative="less")
    return float(r.statistic), float(r.pvalue)


def _signed_rank_exact(x: np.ndarray) -> tuple[float, float]:
    """(W+, p) of ``scipy.stats.wilcoxon(x, alternative="less")`` for up to 13 differences: the
    enumeration of all 2^n sign flips that scipy runs there when ranks tie or zeros are dropped, with
    a statistic that takes every flip at once (scipy's own applies one flip at a time: 2 s per rater
    for 12 items). Flipping signs leaves |x| and so the mid-ranks unchanged; zeros carry no rank."""
    nonzero = x != 0
    ranks = np.zeros(len(x))
    ranks[nonzero] = stats.rankdata(np.abs(x[nonzero]))

    def w_plus(flipped, axis):
        return np.sum((flipped > 0) * ranks, axis=axis)

    r = stats.permutation_test((x,), w_plus, permutation_type="samples", vectorized=True, alternative="less")
    return float(r.statistic), float(r.pvalue)


def _compare_one(own: np.ndarray, judge: np.ndarray, others: np.ndarray, alignment, epsilon, test) -> tuple:
    """(n, judge advantage, rater advantage, statistic, p) of one rater against the judge, both scored
    by how well they represent ``others`` (n_others, n) on the rater's items; a tie counts for both."""
    rater_score = _alignment(own, others, alignment)
    judge_score = _alignment(judge, others, alignment)
    judge_ind = (judge_score >= rater_score).astype(float)
    rater_ind = (rater_score >= judge_score).astype(float)
    return (len(own), judge_ind.mean(), rater_ind.mean(), *_one_sided(rater_ind - judge_ind, epsilon, test))


def _per_rater(h: np.ndarray, j: np.ndarray, usable: np.ndarray, others, alignment, epsilon, test, min_items):
    """(usable items, [(rater, n, judge adv., rater adv., statistic, p)], skipped raters) for one group;
    ``others(k, mine)`` gives the labels rater k and the judge compete to represent on k's items."""
    rows, skipped = [], []
    for k in range(h.shape[0]):
        mine = usable & ~np.isnan(h[k])
        if mine.sum() < min_items:
            if (~np.isnan(h[k])).any():
                skipped.append(k)
            continue
        rows.append((k, *_compare_one(h[k, mine], j[mine], others(k, mine), alignment, epsilon, test)))
    return int(usable.sum()), rows, skipped


def _by_group(labels, names, rows_of, *, needs: str, carried_by: str, **options) -> tuple:
    """Each group's rows (``rows_of(inside)``), InsufficientDataError for a group with no rater to test,
    then the corrected results."""
    per_group = []
    for name in names:
        n_items, rows, skipped = rows_of(labels == name)
        if not rows:
            raise _thin(name, options["min_items_per_rater"], needs)
        per_group.append((name, n_items, rows, skipped))
    return _results(per_group, carried_by=carried_by, **options)


def _check_options(alignment, epsilon, test, min_items_per_rater) -> int:
    """The minimum items per rater (the test's own default when None), after checking the options."""
    check_choice("alignment", alignment, ALIGNMENTS)
    check_choice("test", test, TESTS)
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float) or not 0 <= epsilon < 1:
        raise ValueError(f"epsilon must be a number from 0 to 1 (exclusive), got {epsilon!r}")
    if min_items_per_rater is None:
        return MIN_ITEMS_PER_RATER if test == "t" else MIN_ITEMS_WILCOXON
    if min_items_per_rater < 2:
        raise ValueError("min_items_per_rater must be at least 2 for a one-sided test")
    return min_items_per_rater


def _group_labels(groups, n: int):
    labels = np.full(n, None, dtype=object) if groups is None else np.asarray(groups, dtype=object)
    if labels.shape != (n,):
        raise ValueError(f"groups must hold one label per item ({n}), got shape {labels.shape}")
    return labels, ([None] if groups is None else sorted(set(labels.tolist()), key=str))


def _thin(name, min_items_per_rater: int, needs: str) -> InsufficientDataError:
    where = "" if name is None else f" in subgroup {name!r}"
    return InsufficientDataError(
        f"no rater labelled {min_items_per_rater} items{where} together with {needs}; the alt-test needs "
        f"at least {MIN_RATERS_PER_ITEM} raters on {RECOMMENDED_ITEMS}-100 items ({RECOMMENDED_RATERS} raters "
        "recommended)"
    )


def _results(per_group, *, alignment, epsilon, q, test, min_items_per_rater, carried_by) -> tuple:
    """AltTestResults from each group's rows, the Benjamini–Yekutieli correction run over every rater
    of every group together [1]_ (FAQ: several domains)."""
    wins = benjamini_yekutieli([row[5] for _, _, rows, _ in per_group for row in rows], q=q)
    results, at = [], 0
    for name, n_items, rows, skipped in per_group:
        comparisons = tuple(
            RaterComparison(k, name, n, float(ja), float(ra), t, p, bool(w))
            for (k, n, ja, ra, t, p), w in zip(rows, wins[at : at + len(rows)], strict=True)
        )
        at += len(rows)
        omega = sum(c.judge_wins for c in comparisons) / len(comparisons)
        notes = []
        if n_items < RECOMMENDED_ITEMS:
            notes.append(f"only {n_items} items carry {carried_by}; the authors ask for {RECOMMENDED_ITEMS}-100")
        if len(comparisons) < RECOMMENDED_RATERS:
            notes.append(
                f"only {len(comparisons)} rater(s) tested; {RECOMMENDED_RATERS} are recommended "
                "(with two, the test only asks which of the two the judge is closer to)"
            )
        if skipped:
            notes.append(f"{len(skipped)} rater(s) left out with fewer than {min_items_per_rater} usable items")
        if test == "wilcoxon":
            notes.append(
                "Wilcoxon signed-rank test in place of the t-test, as the authors advise below "
                f"{MIN_ITEMS_PER_RATER} items per rater"
            )
        results.append(
            AltTestResult(
                group=name,
                alignment=alignment,
                epsilon=float(epsilon),
                q=float(q),
                n_items=n_items,
                n_raters=len(comparisons),
                winning_rate=float(omega),
                advantage_probability=float(np.mean([c.judge_advantage for c in comparisons])),
                passed=bool(omega >= 0.5),
                comparisons=comparisons,
                skipped=tuple(skipped),
                notes=tuple(notes),
                test=test,
            )
        )
    return tuple(results)


def alt_test(
    humans,
    judge,
    *,
    alignment: str,
    epsilon: float,
    q: float = 0.05,
    groups=None,
    test: str = "t",
    min_raters_per_item: int = MIN_RATERS_PER_ITEM,
    min_items_per_rater: int | None = None,
) -> tuple[AltTestResult, ...]:
    r"""The alternative annotator test [1]_ of a judge against human raters.

    Parameters
    ----------
    humans : array_like, shape (n_raters, n_items)
        Human labels, NaN = not rated (categories as numeric codes for ``"accuracy"``).
    judge : array_like, shape (n_items,)
        The judge's label of each item, NaN = not rated.
    alignment : {"accuracy", "neg_rmse"}
        How well one label represents the others on an item: the share of the other raters'
        labels it equals (categorical labels), or minus the root mean squared difference from
        them (numeric labels) [1]_.
    epsilon : float
        The cost–benefit margin: how much better a rater may be before the judge's lower cost no
        longer pays (the authors suggest 0.2 for experts, 0.15 for skilled raters, 0.1 for crowd
        workers).
    q : float
        False discovery rate of the Benjamini–Yekutieli correction over the raters.
    groups : array_like, shape (n_items,), optional
        A subgroup label per item. Each subgroup is tested on its own and the correction runs over
        the tests of all subgroups together, as the authors advise for several domains.
    test : {"t", "wilcoxon"}
        The one-sided test of each rater: the paired t-test of the paper, or the Wilcoxon
        signed-rank test the authors advise when raters have fewer than 30 items (the t-test's
        normality no longer holds).
    min_raters_per_item, min_items_per_rater : int
        An item is used when this many raters and the judge labelled it; a rater is tested when
        they labelled this many used items (by default 30 for the t-test, 10 for Wilcoxon).

    Returns
    -------
    tuple of AltTestResult
        One per subgroup (sorted), or a single one with ``group=None``.

    Raises
    ------
    InsufficientDataError
        A group in which no rater labelled ``min_items_per_rater`` items together with another
        rater and the judge.

    Notes
    -----
    For each tested rater :math:`h_j` and each of their items :math:`i`, with :math:`S` the
    alignment with the remaining raters :math:`H_{-j}[i]`, the judge :math:`f` scores
    :math:`W^f_{i,j} = 1[S(f, i) \ge S(h_j, i)]` and the rater
    :math:`W^h_{i,j} = 1[S(h_j, i) \ge S(f, i)]`; a tie counts for both. With
    :math:`d_i = W^h_{i,j} - W^f_{i,j}`, a one-sided one-sample t-test of
    :math:`H_0: E[d] \ge \varepsilon` against :math:`H_1: E[d] < \varepsilon` gives a p-value per
    rater (with ``test="wilcoxon"``, the signed-rank test of :math:`d_i - \varepsilon` against a
    median below zero, zero differences dropped); the Benjamini–Yekutieli step-up procedure [2]_
    at level q decides which nulls fall (the judge "wins" against those raters). The winning rate is
    :math:`\omega = \#\text{wins} / \#\text{raters tested}`; the judge passes when
    :math:`\omega \ge 0.5`. The average advantage probability is
    :math:`\rho = \operatorname{mean}_j \operatorname{mean}_i W^f_{i,j}`.

    Examples
    --------
    Three raters who agree on every item except each one's own slip, and a judge that never
    slips: the judge represents the others better than each rater does.

    >>> import numpy as np
    >>> truth = np.tile([0.0, 1.0, 2.0], 20)
    >>> humans = np.vstack([truth] * 3)
    >>> for k in range(3):
    ...     humans[k, k::3] = (truth[k::3] + 1) % 3
    >>> (r,) = alt_test(humans, truth, alignment="accuracy", epsilon=0.1)
    >>> r.winning_rate, r.advantage_probability, r.passed
    (1.0, 1.0, True)
    """
    min_items_per_rater = _check_options(alignment, epsilon, test, min_items_per_rater)
    h = as_float_array(np.array(humans, dtype=float), "humans", ndim=2)
    j = as_float_array(judge, "judge")
    if h.shape[1] != len(j):
        raise ValueError(f"humans has {h.shape[1]} items but judge has {len(j)}")
    if min_raters_per_item < 2:
        raise ValueError("min_raters_per_item must be at least 2: a left-out rater needs someone to represent")
    labels, names = _group_labels(groups, len(j))

    def rows_of(inside):
        hh, jj = h[:, inside], j[inside]
        usable = ((~np.isnan(hh)).sum(axis=0) >= min_raters_per_item) & ~np.isnan(jj)
        return _per_rater(
            hh,
            jj,
            usable,
            lambda k, mine: np.delete(hh[:, mine], k, axis=0),
            alignment,
            epsilon,
            test,
            min_items_per_rater,
        )

    return _by_group(
        labels,
        names,
        rows_of,
        needs="another rater and the judge",
        carried_by=f"{min_raters_per_item} raters and the judge",
        alignment=alignment,
        epsilon=float(epsilon),
        q=q,
        test=test,
        min_items_per_rater=min_items_per_rater,
    )


def alt_test_single_expert(
    expert,
    annotators,
    judge,
    *,
    alignment: str,
    epsilon: float,
    q: float = 0.05,
    groups=None,
    test: str = "t",
    min_items_per_rater: int | None = None,
) -> tuple[AltTestResult, ...]:
    r"""The alt-test when one trusted expert labelled the items (the single-expert scenario of [1]_,
    appendix "A Single Expert Annotator"): who represents the expert better, the judge or each of
    the other annotators recruited beside them?

    Parameters
    ----------
    expert : array_like, shape (n_items,)
        The expert's label of each item, NaN = not labelled.
    annotators : array_like, shape (n_raters, n_items)
        The other annotators' labels (NaN = not labelled); each is tested in turn.
    judge : array_like, shape (n_items,)
        The judge's label of each item, NaN = not labelled.
    alignment, epsilon, q, groups, test, min_items_per_rater
        As in :func:`alt_test`. ε weighs the judge's cost against the recruited annotators', not
        the expert's.

    Returns
    -------
    tuple of AltTestResult
        One per subgroup (sorted), or a single one with ``group=None``; ``comparisons[k].rater``
        indexes ``annotators``.

    Raises
    ------
    InsufficientDataError
        A group in which no annotator labelled ``min_items_per_rater`` items the expert and the judge
        also labelled.

    Notes
    -----
    The procedure of :func:`alt_test` with the remaining raters :math:`H_{-j}[i]` replaced by the
    expert's label :math:`e_i` for every annotator :math:`h_j`: :math:`S(x, i)` is
    :math:`1[x = e_i]` (accuracy) or :math:`-|x - e_i|` (minus the RMSE against one label), and
    :math:`W^f_{i,j} = 1[S(f, i) \ge S(h_j, i)]`, :math:`W^h_{i,j} = 1[S(h_j, i) \ge S(f, i)]`;
    the same one-sided test against ε per annotator, Benjamini–Yekutieli over the annotators, ω
    and ρ. One annotator is enough: there is no consensus of the others to lose.

    Examples
    --------
    >>> import numpy as np
    >>> expert = np.tile([0.0, 1.0, 2.0], 20)
    >>> annotators = np.vstack([expert, expert])
    >>> annotators[0, ::3] = 1.0
    >>> annotators[1, 1::3] = 2.0
    >>> (r,) = alt_test_single_expert(expert, annotators, expert, alignment="accuracy", epsilon=0.1)
    >>> r.winning_rate, r.passed
    (1.0, True)
    """
    min_items_per_rater = _check_options(alignment, epsilon, test, min_items_per_rater)
    e = as_float_array(expert, "expert")
    h = as_float_array(np.array(annotators, dtype=float), "annotators", ndim=2)
    j = as_float_array(judge, "judge")
    if h.shape[1] != len(j) or len(e) != len(j):
        raise ValueError(f"expert has {len(e)} items, annotators {h.shape[1]} and judge {len(j)}: they must match")
    labels, names = _group_labels(groups, len(j))

    def rows_of(inside):
        ee, hh, jj = e[inside], h[:, inside], j[inside]
        usable = ~np.isnan(ee) & ~np.isnan(jj)
        return _per_rater(hh, jj, usable, lambda k, mine: ee[None, mine], alignment, epsilon, test, min_items_per_rater)

    return _by_group(
        labels,
        names,
        rows_of,
        needs="the expert and the judge",
        carried_by="the expert and the judge",
        alignment=alignment,
        epsilon=float(epsilon),
        q=q,
        test=test,
        min_items_per_rater=min_items_per_rater,
    )
