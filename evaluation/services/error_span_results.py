"""Results of error-span projects (Results.kind ERROR_SPANS: ESA, MQM): a score per rating, per segment (an
output, averaged over its raters), per system and, with weights, per error category; the systems ranked as
the WMT findings rank them (``evaluation.stats.rank_systems``: macro over subgroups, Wilcoxon tests per
subgroup combined by Stouffer's method, rank ranges and significance clusters) with bootstrap intervals."""

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from annotation.selectors.error_spans import SpanRatings
from evaluation.stats import InsufficientDataError, rank_systems
from evaluation.stats.error_spans import RankedSystem

from ._common import generator, interval, num


@dataclass(frozen=True)
class SpanScoring:
    """How a type scores its spans: ``weight(severity, category)`` (MQM: a rating's score is the sum of its spans'
    weights) or None (ESA: the rating's coded value is the score), ``weights`` those weights as the project states
    them; ``higher_is_better`` orders the ranking."""

    higher_is_better: bool
    weight: Callable[[str, str], float] | None = None
    weights: object = None


@dataclass(frozen=True)
class SpanResultOptions:
    confidence: float = 0.95
    n_resamples: int = 1000
    seed: int = 0
    alpha: float = 0.05
    segments: bool = False


@dataclass(frozen=True, eq=False)
class RatingScores:
    """``score`` per rating; per span its ``weight`` (None without weights)."""

    score: np.ndarray
    weight: np.ndarray | None


def rating_scores(ratings: SpanRatings, scoring: SpanScoring) -> RatingScores:
    """Each rating's score: the sum of its spans' weights (source-side spans included, as WMT scores them),
    or its coded value. Rejected proposals are not in ``ratings`` (``span_ratings`` leaves them out)."""
    if scoring.weight is None:
        return RatingScores(ratings.value.astype(float), None)
    weight = np.zeros(len(ratings.start))
    if len(ratings.start):
        keys = np.stack([ratings.severity.astype(str), ratings.category.astype(str)])
        pairs, pair_of_span = np.unique(keys, axis=1, return_inverse=True)
        table = np.array([scoring.weight(severity, category) for severity, category in pairs.T], dtype=float)
        weight = table[pair_of_span.reshape(-1)]
    score = np.bincount(ratings.span_rating, weights=weight, minlength=len(ratings)).astype(float)
    return RatingScores(score, weight)


@dataclass(frozen=True)
class SpanSystem:
    """One system's error-span scores on a criterion, and its place in WMT's ranking."""

    system: str
    #: Ratings of the system.
    n: int
    #: Segments (outputs) of the system.
    n_items: int
    #: The mean over subgroups of the mean segment score (the macro score WMT ranks by); without a ranking, the
    #: mean segment score.
    mean: float | None
    #: Percentile bootstrap interval over segments (None in it without a ranking).
    mean_ci: list[float | None]
    #: The mean over all segments.
    micro: float | None
    #: WMT's rank range [significant losses + 1, systems − significant wins]; None without a ranking.
    rank: list[int] | None
    #: WMT's significance cluster (1 = best); None without a ranking.
    cluster: int | None
    #: Mean segment score per subgroup (empty without a ranking).
    subgroup_means: dict[str, float | None]
    n_spans: int
    spans_per_judgment: float | None
    #: Spans per severity.
    severities: dict[str, int]


@dataclass(frozen=True)
class SpanComparison:
    """Two systems' difference in mean score with the p-value of the ranking's test (not Holm-adjusted, as WMT
    reports it)."""

    system_a: str
    system_b: str
    difference: float | None
    #: Items both systems have a segment of.
    n_items: int
    #: The Stouffer-combined one-sided Wilcoxon test over subgroups.
    p_value: float | None
    significant: bool


@dataclass(frozen=True)
class SpanCategory:
    """An error category's share of each system's mean segment score (the shares add up to it)."""

    #: "(none)" for spans without a category.
    category: str
    n_spans: int
    systems: dict[str, float | None]


@dataclass(frozen=True)
class SpanSegment:
    """One segment (output): its score, the mean over the raters who judged it."""

    #: The item's external id.
    item: str
    system: str
    score: float | None
    n_raters: int


@dataclass(frozen=True)
class ErrorSpanCriterion:
    """The results of one criterion of an error-span project."""

    criterion: str
    higher_is_better: bool
    #: MQM: the project's weights as it states them; None for ESA.
    weights: object
    n_judgments: int
    n_items: int
    n_raters: int
    n_spans: int
    #: The significance level of the ranking's clusters.
    alpha: float
    #: Ranked best first.
    systems: tuple[SpanSystem, ...] = ()
    comparisons: tuple[SpanComparison, ...] = ()
    #: With weights (MQM) only.
    categories: tuple[SpanCategory, ...] = ()
    error: str | None = None

    def to_json(self) -> dict:
        """The criterion as the results were written in JSON before they were typed (the profile breakdown's
        answer)."""
        out = asdict(self)
        for name in ("systems", "comparisons", "categories", "segments"):
            if name in out:
                out[name] = list(out[name])
        return out


@dataclass(frozen=True)
class ErrorSpanCriterionSegments(ErrorSpanCriterion):
    """The results with every segment's score (``SpanResultOptions.segments``)."""

    segments: tuple[SpanSegment, ...] = ()


def error_span_criterion(
    ratings: SpanRatings,
    name: str,
    scoring: SpanScoring,
    options: SpanResultOptions,
    item_names: Mapping[int, str] | None = None,
) -> ErrorSpanCriterion:
    """The results of one criterion from its included ratings (see the module); with ``options.segments`` each
    segment's, its item named by ``item_names`` (item id → external id; the id as text without)."""
    result = ErrorSpanCriterion(
        criterion=name,
        higher_is_better=scoring.higher_is_better,
        weights=scoring.weights,
        n_judgments=len(ratings),
        n_items=len(np.unique(ratings.item)),
        n_raters=len(np.unique(ratings.rater)),
        n_spans=len(ratings.start),
        alpha=options.alpha,
    )
    if not len(ratings):
        return replace(result, error="no judgments on this criterion yet")
    scores = rating_scores(ratings, scoring)
    # a segment is an output: its score is the mean over the raters who judged it
    outputs, seg_of_rating = np.unique(ratings.output, return_inverse=True)
    n_raters = np.bincount(seg_of_rating, minlength=len(outputs))
    seg_score = np.bincount(seg_of_rating, weights=scores.score, minlength=len(outputs)) / n_raters
    first = np.zeros(len(outputs), dtype=np.int64)
    first[seg_of_rating[::-1]] = np.arange(len(ratings))[::-1]
    seg_system = ratings.system[first].astype(str)
    seg_item = ratings.item[first]
    seg_subgroup = ratings.subgroup[first].astype(str)
    systems = np.unique(seg_system)
    error = None
    ranked: list[tuple[str, RankedSystem | None]]
    try:
        ranking = rank_systems(
            seg_system,
            seg_item,
            seg_score,
            domain=seg_subgroup,
            higher_is_better=scoring.higher_is_better,
            alpha=options.alpha,
            rng=generator(options.seed) if options.n_resamples else None,
            n_resamples=options.n_resamples,
            confidence=options.confidence,
        )
    except InsufficientDataError as exc:
        error = str(exc)
        ranked = [(s, None) for s in systems.tolist()]
        p_values = {}
    else:
        ranked = [(str(r.system), r) for r in ranking.systems]
        p_values = ranking.p_values
    rows = tuple(_system_row(ratings, seg_system, seg_score, system, r) for system, r in ranked)
    categories = (
        _category_rows(ratings, scores, seg_of_rating, n_raters, seg_system) if scores.weight is not None else []
    )
    order = [row.system for row in rows]
    score = {system: r.score for system, r in ranked if r is not None}
    comparisons = []
    for k, a in enumerate(order):
        for b in order[k + 1 :]:
            p = p_values.get(frozenset((a, b)))
            if p is None:
                continue
            shared = np.intersect1d(seg_item[seg_system == a], seg_item[seg_system == b])
            comparisons.append(
                SpanComparison(
                    system_a=a,
                    system_b=b,
                    difference=num(score[a] - score[b]),
                    n_items=len(shared),
                    p_value=num(p),
                    significant=bool(p < options.alpha),
                )
            )
    result = replace(result, systems=rows, comparisons=tuple(comparisons), categories=tuple(categories), error=error)
    if not options.segments:
        return result
    names = item_names or {}
    segments = tuple(
        SpanSegment(item=names.get(int(i), str(i)), system=s, score=num(v), n_raters=int(n))
        for i, s, v, n in zip(seg_item, seg_system, seg_score, n_raters, strict=True)
    )
    return ErrorSpanCriterionSegments(**{f.name: getattr(result, f.name) for f in fields(result)}, segments=segments)


def _system_row(ratings, seg_system, seg_score, system: str, ranked: RankedSystem | None) -> SpanSystem:
    mine = ratings.system == system
    span_mine = mine[ratings.span_rating]
    severities, counts = np.unique(ratings.severity[span_mine].astype(str), return_counts=True)
    return SpanSystem(
        system=system,
        n=int(mine.sum()),
        n_items=int((seg_system == system).sum()),
        mean=num(ranked.score) if ranked else num(seg_score[seg_system == system].mean()),
        mean_ci=interval(ranked.ci_low, ranked.ci_high) if ranked else [None, None],
        micro=num(ranked.micro) if ranked else num(seg_score[seg_system == system].mean()),
        rank=list(ranked.rank) if ranked else None,
        cluster=ranked.cluster if ranked else None,
        subgroup_means={k: num(v) for k, v in ranked.domain_scores.items()} if ranked else {},
        n_spans=int(span_mine.sum()),
        spans_per_judgment=num(span_mine.sum() / mine.sum()),
        severities={s: int(c) for s, c in zip(severities, counts, strict=True)},
    )


def _category_rows(ratings, scores, seg_of_rating, n_raters, seg_system) -> list[SpanCategory]:
    """Each category's share of each system's (micro) score: a span's weight over its segment's raters and its
    system's segments, so that a system's shares add up to its mean segment score."""
    seg_of_span = seg_of_rating[ratings.span_rating]
    system_of_span = seg_system[seg_of_span]
    n_segments = {s: int((seg_system == s).sum()) for s in np.unique(seg_system).tolist()}
    share = scores.weight / n_raters[seg_of_span] / np.array([n_segments[s] for s in system_of_span.tolist()])
    categories = np.where(ratings.category == "", "(none)", ratings.category).astype(str)
    rows = []
    for category in np.unique(categories).tolist():
        mask = categories == category
        per_system = {}
        for system in np.unique(system_of_span[mask]).tolist():
            per_system[system] = num(share[mask & (system_of_span == system)].sum())
        rows.append(SpanCategory(category=category, n_spans=int(mask.sum()), systems=per_system))
    return rows
