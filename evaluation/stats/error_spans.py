r"""Scores from error-span protocols: MQM (weighted errors, Freitag et al. 2021) and ESA (0-100 scores with
error spans, Kocmi et al. 2024), and the ranking of systems the WMT findings report.

MQM. Each error row weighs by the first rule of a :class:`MqmWeights` whose pattern matches
``"<severity>:<category>"`` (lower-cased); a rating's score is the sum of its rows' weights (a
``No-error`` row carries 0 and only records that the rating exists), a segment's the mean over its
raters, a system's the mean over its segments. Lower is better.

Ranking (WMT24's ``humeval/tools.py`` and ``calculate_clusters.py``). A system's score is the mean
over domains of its per-domain mean segment score. For each pair and each domain a two-sided
Wilcoxon signed-rank test (scipy's defaults) on the segment differences over the segments both
were scored on; the domain p-values are combined by Stouffer's method,
:math:`z = \sum_d \Phi^{-1}(1 - p_d) / \sqrt{D}`, :math:`p = 1 - \Phi(z)`. A system's rank range
runs from (significant losses + 1) to (N - significant wins), and systems are clustered with
:func:`significance_clusters` (which draws the same lines as ``tools.get_clusters``).
"""

import re
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import stats

from ._resampling import check_confidence, check_resampling
from .clusters import significance_clusters
from .errors import InsufficientDataError


@dataclass(frozen=True)
class MqmWeights:
    """Ordered ``(pattern, weight)`` rules; the first ``re.search`` match on ``"severity:category"``
    (lower-cased) wins, and a row no rule matches is an error."""

    name: str
    rules: tuple[tuple[str, float], ...]

    def weight(self, severity: str, category: str) -> float | None:
        key = f"{severity}:{category}".lower()
        for pattern, weight in self.rules:
            if re.search(pattern, key):
                return float(weight)
        return None


# WMT's MQM (Freitag et al. 2021; the google/wmt-mqm-human-evaluation README): Major 5, Minor 1, Minor
# Fluency/Punctuation 0.1, Non-translation 25. Critical weighs as Major, as WMT24's humeval/tools.py does;
# none of the published WMT MQM files uses it.
WMT_MQM_WEIGHTS = MqmWeights(
    "wmt",
    (
        (r"^(no-error|neutral):", 0.0),
        (r":non-translation", 25.0),
        (r"^minor:fluency/punctuation$", 0.1),
        (r"^minor:", 1.0),
        (r"^(major|critical):", 5.0),
    ),
)
# The Marot tool's defaults (Google's MQM viewer), also WMT24's humeval/tools.py mqm_weights(): source
# issues and creative reinterpretation weigh nothing.
MAROT_MQM_WEIGHTS = MqmWeights(
    "marot",
    (
        (r"^(no-error|neutral):", 0.0),
        (r"^minor:.*punctuation", 0.1),
        (r"reinterpretation", 0.0),
        (r":source issue", 0.0),
        (r":non-translation", 25.0),
        (r"^minor:", 1.0),
        (r"^(major|critical):", 5.0),
    ),
)


@dataclass(frozen=True, eq=False)
class MqmScores:
    """``row_weight`` per error row; per scored (system, segment): ``segment_system``, ``segment``,
    ``segment_score`` (mean over raters) and ``segment_raters``; per system (sorted by name):
    ``system_score`` and ``system_segments``; ``category_score[s, c]`` is category ``c``'s share of
    system ``s``'s score (the rows of a category sum to the system's score)."""

    row_weight: np.ndarray
    segment_system: np.ndarray
    segment: np.ndarray
    segment_score: np.ndarray
    segment_raters: np.ndarray
    systems: tuple
    system_score: np.ndarray
    system_segments: np.ndarray
    categories: tuple
    category_score: np.ndarray


@dataclass(frozen=True)
class RankedSystem:
    system: object
    score: float
    micro: float
    ci_low: float | None
    ci_high: float | None
    n_segments: int
    rank: tuple[int, int]
    cluster: int
    domain_scores: dict


@dataclass(frozen=True)
class SystemRanking:
    """Systems best first; ``p_values`` per pair (a frozenset of two names), ``alpha`` the level of
    the rank ranges and clusters."""

    systems: tuple[RankedSystem, ...]
    p_values: dict
    alpha: float
    higher_is_better: bool


def mqm_row_weights(severity, category, *, weights: MqmWeights = WMT_MQM_WEIGHTS) -> np.ndarray:
    """The weight of each error row; ValueError naming the first row no rule covers."""
    sev = np.asarray(severity, dtype=str)
    cat = np.asarray(category, dtype=str)
    if sev.shape != cat.shape or sev.ndim != 1:
        raise ValueError("severity and category must be 1-D with one entry per row")
    if sev.size == 0:
        return np.zeros(0)
    sev_names, sev_code = np.unique(sev, return_inverse=True)
    cat_names, cat_code = np.unique(cat, return_inverse=True)
    pair_keys, inverse = np.unique(sev_code * len(cat_names) + cat_code, return_inverse=True)
    table = [weights.weight(sev_names[k // len(cat_names)], cat_names[k % len(cat_names)]) for k in pair_keys]
    missing = [k for k, w in enumerate(table) if w is None]
    if missing:
        row = int(np.argmax(inverse == missing[0]))
        raise ValueError(
            f"row {row}: no {weights.name} MQM weight for severity {str(sev[row])!r}, category {str(cat[row])!r}"
        )
    return np.array(table, dtype=float)[inverse]


def mqm_scores(system, segment, rater, severity, category, *, weights: MqmWeights = WMT_MQM_WEIGHTS) -> MqmScores:
    """MQM per segment (mean over raters of each rating's summed weights), per system and per category.

    Parameters
    ----------
    system, segment, rater, severity, category : array_like, shape (n_rows,)
        One row per error, or a ``No-error`` row for a rating without errors.
    weights : MqmWeights
        ``WMT_MQM_WEIGHTS`` (default) or ``MAROT_MQM_WEIGHTS`` or the project's own rules.

    Examples
    --------
    >>> from evaluation.stats import mqm_scores
    >>> s = mqm_scores(["A", "A", "A", "B"], [1, 1, 2, 1], ["r1", "r2", "r1", "r1"],
    ...                ["Major", "Minor", "No-error", "Minor"],
    ...                ["Accuracy/Mistranslation", "Fluency/Punctuation", "No-error", "Style/Awkward"])
    >>> s.systems, s.system_score.tolist()
    (('A', 'B'), [1.275, 1.0])
    """
    w = mqm_row_weights(severity, category, weights=weights)
    sys_names, sys_code = _codes(system, "system")
    seg_names, seg_code = _codes(segment, "segment")
    _, rater_code = _codes(rater, "rater")
    cat_names, cat_code = _codes(category, "category")
    if not (len(sys_code) == len(seg_code) == len(rater_code) == len(w)):
        raise ValueError("system, segment, rater, severity and category must have one entry per row")
    if len(w) == 0:
        raise InsufficientDataError("no MQM rows to score")
    item = sys_code * len(seg_names) + seg_code
    item_keys, item_code = np.unique(item, return_inverse=True)
    _, rating_code = np.unique(item * (rater_code.max() + 1) + rater_code, return_inverse=True)
    rating_item = np.zeros(rating_code.max() + 1, dtype=np.int64)
    rating_item[rating_code] = item_code
    n_raters = np.bincount(rating_item, minlength=len(item_keys))
    seg_score = np.bincount(item_code, weights=w, minlength=len(item_keys)) / n_raters
    item_sys = item_keys // len(seg_names)
    n_seg = np.bincount(item_sys, minlength=len(sys_names))
    sys_score = np.bincount(item_sys, weights=seg_score, minlength=len(sys_names)) / n_seg
    share = w / n_raters[item_code] / n_seg[sys_code]
    by_cat = np.bincount(sys_code * len(cat_names) + cat_code, weights=share, minlength=len(sys_names) * len(cat_names))
    return MqmScores(
        row_weight=w,
        segment_system=sys_names[item_sys],
        segment=seg_names[item_keys % len(seg_names)],
        segment_score=seg_score,
        segment_raters=n_raters,
        systems=tuple(sys_names.tolist()),
        system_score=sys_score,
        system_segments=n_seg,
        categories=tuple(cat_names.tolist()),
        category_score=by_cat.reshape(len(sys_names), len(cat_names)),
    )


def rank_systems(
    system,
    segment,
    score,
    *,
    domain=None,
    higher_is_better=True,
    alpha=0.05,
    rng=None,
    n_resamples=1000,
    confidence=0.95,
) -> SystemRanking:
    """Systems ranked as the WMT24 findings rank them (see the module), with bootstrap intervals.

    Parameters
    ----------
    system, segment : array_like, shape (n,)
        One score per (system, segment): average several raters' scores first (e.g.
        :func:`mqm_scores` ``segment_score``).
    score : array_like of float, shape (n,)
        ESA 0-100 scores, MQM segment scores, ...
    domain : array_like, shape (n,), optional
        The segment's domain; scores are macro-averaged over domains and tests combined across them.
    higher_is_better : bool
        False for MQM.
    alpha : float
        Significance level of the rank ranges and clusters.
    rng, n_resamples, confidence
        Percentile bootstrap of each system's score, resampling its segments within each domain.

    Raises
    ------
    ValueError
        Mismatched lengths, a (system, segment) scored twice, a non-finite score.
    InsufficientDataError
        Fewer than two systems.
    """
    confidence = check_confidence(confidence)
    n_resamples = check_resampling(n_resamples, rng)
    x = np.asarray(score, dtype=float)
    sys_names, sys_code = _codes(system, "system")
    _, seg_code = _codes(segment, "segment")
    dom_names, dom_code = _codes(np.zeros(len(x), dtype=np.int64) if domain is None else domain, "domain")
    if not (len(x) == len(sys_code) == len(seg_code) == len(dom_code)):
        raise ValueError("system, segment, score and domain must have one entry per row")
    if not np.isfinite(x).all():
        raise ValueError(f"score[{int(np.argmax(~np.isfinite(x)))}] is not a finite number")
    key = sys_code * (seg_code.max(initial=0) + 1) + seg_code
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(np.diff(key[order]) == 0)
    if dup.size:
        i = int(order[dup[0] + 1])
        raise ValueError(f"row {i}: system {str(sys_names[sys_code[i]])!r} is scored twice on that segment")
    if len(sys_names) < 2:
        raise InsufficientDataError("ranking needs at least two systems")
    n_sys, n_dom = len(sys_names), len(dom_names)
    cell = sys_code * n_dom + dom_code
    count = np.bincount(cell, minlength=n_sys * n_dom).reshape(n_sys, n_dom)
    total = np.bincount(cell, weights=x, minlength=n_sys * n_dom).reshape(n_sys, n_dom)
    with np.errstate(invalid="ignore", divide="ignore"):
        dom_mean = total / count
    macro = np.nanmean(dom_mean, axis=1)
    micro = total.sum(1) / count.sum(1)
    low, high = _bootstrap_macro(x, sys_code, dom_code, n_sys, n_dom, n_resamples, rng, confidence)

    sign = 1.0 if higher_is_better else -1.0
    ranked = np.argsort(-sign * macro, kind="stable")
    p = _pair_p_values(x, sys_code, seg_code, dom_code, n_sys)
    wins, losses = np.zeros(n_sys, dtype=int), np.zeros(n_sys, dtype=int)
    for (a, b), pv in p.items():
        if pv < alpha:
            better, worse = (a, b) if sign * macro[a] > sign * macro[b] else (b, a)
            wins[better] += 1
            losses[worse] += 1
    names = [sys_names[k].item() for k in ranked]
    significant = {frozenset((sys_names[a].item(), sys_names[b].item())) for (a, b), pv in p.items() if pv < alpha}
    clusters = significance_clusters(names, significant)
    rows = tuple(
        RankedSystem(
            system=sys_names[k].item(),
            score=float(macro[k]),
            micro=float(micro[k]),
            ci_low=None if low is None else float(low[k]),
            ci_high=None if high is None else float(high[k]),
            n_segments=int(count[k].sum()),
            rank=(int(losses[k]) + 1, n_sys - int(wins[k])),
            cluster=cluster,
            domain_scores={dom_names[d].item(): float(dom_mean[k, d]) for d in range(n_dom) if count[k, d]},
        )
        for k, cluster in zip(ranked, clusters, strict=True)
    )
    p_named = {frozenset((sys_names[a].item(), sys_names[b].item())): pv for (a, b), pv in p.items()}
    return SystemRanking(rows, p_named, float(alpha), bool(higher_is_better))


def _pair_p_values(x, sys_code, seg_code, dom_code, n_sys) -> dict:
    """Stouffer-combined per-domain two-sided Wilcoxon p-value of every pair of systems."""
    n_seg = int(seg_code.max()) + 1
    grid = np.full((n_sys, n_seg), np.nan)
    grid[sys_code, seg_code] = x
    seg_dom = np.zeros(n_seg, dtype=np.int64)
    seg_dom[seg_code] = dom_code
    out = {}
    for a, b in combinations(range(n_sys), 2):
        diff = grid[a] - grid[b]
        both = ~np.isnan(diff)
        z = []
        for d in np.unique(seg_dom[both]):
            dd = diff[both & (seg_dom == d)]
            pv = stats.wilcoxon(dd).pvalue if np.any(dd != 0) else 1.0
            z.append(stats.norm.ppf(1 - pv))
        out[a, b] = float(1 - stats.norm.cdf(np.sum(z) / np.sqrt(len(z)))) if z else 1.0
    return out


def _bootstrap_macro(x, sys_code, dom_code, n_sys, n_dom, n_resamples, rng, confidence):
    """Percentile interval of each system's macro score, resampling segments within (system, domain)."""
    if not n_resamples:
        return None, None
    reps = np.zeros((n_resamples, n_sys))
    used = np.zeros(n_sys)
    for s in range(n_sys):
        for d in range(n_dom):
            vals = x[(sys_code == s) & (dom_code == d)]
            if vals.size:
                draw = rng.integers(0, vals.size, size=(n_resamples, vals.size))
                reps[:, s] += vals[draw].mean(axis=1)
                used[s] += 1
    reps /= used
    tail = (1 - confidence) / 2
    low, high = np.quantile(reps, [tail, 1 - tail], axis=0)
    return low, high


def _codes(values, name: str):
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D")
    if arr.dtype == object:
        arr = arr.astype(str)
    return np.unique(arr, return_inverse=True)
