"""Span agreement of one scope (a window's ratings of a criterion, a subgroup, all of them) from plain
arrays: which ratings form the scope's segments and raters, ``agreement.stats.span_agreement`` on them,
and its results as named figures ready for snapshot rows. No Django here: the snapshot service reads
the judgments and stores the figures.

Statistic names: ``span_<stat>`` for the span-level ones (``span_f1_exact``, ``span_precision_overlap``,
...), ``<stat>_<label>`` for the character-level ones and unitizing alpha, where the label is ``any``
(inside any error span or not), a severity (inside a span of that severity or not) or ``severity`` (no
error, or the most severe span covering the character): ``char_kappa_major``, ``unitizing_alpha_any``."""

from dataclasses import dataclass, replace

import numpy as np

from agreement.stats import InsufficientDataError
from agreement.stats.correlation import rater_correlation
from agreement.stats.spans import SpanStatistic, span_agreement, span_set

# agreement.stats.spans statistic -> stored name prefix (character-level ones get the label after it)
_PREFIX = {"kappa": "char_kappa", "alpha": "char_alpha", "char_f1": "char_f1", "unitizing_alpha": "unitizing_alpha"}
SPAN_LEVEL_ALL = ("f1_exact", "f1_overlap", "matched_exact")
SPAN_LEVEL_PAIR = ("precision_exact", "recall_exact", "f1_exact", "precision_overlap", "recall_overlap", "f1_overlap")
KENDALL_TAU = "kendall_tau"
# per criterion scope: the spans the figures compare, and those left out by reason (in its detail)
SPAN_COUNTS = "span_counts"


def statistic_name(statistic: str, label: str) -> str:
    """The stored name of a span statistic for a label (``"spans"`` for the span-level ones)."""
    return f"span_{statistic}" if label == "spans" else f"{_PREFIX[statistic]}_{label}"


def span_labels(severities: tuple[str, ...]) -> tuple[str, ...]:
    """The label schemes, as agreement.stats.spans builds them: any error, each severity, the severity scale."""
    return ("any", *severities, "severity")


def statistic_names(severities: tuple[str, ...], *, pair: bool) -> list[tuple[str, str]]:
    """Every (statistic, label) a scope reports over all raters (``pair`` False) or for a rater pair."""
    names = [(s, "spans") for s in (SPAN_LEVEL_PAIR if pair else SPAN_LEVEL_ALL)]
    for label in span_labels(severities):
        binary = label != "severity"
        names += [(s, label) for s in ("char_f1", "kappa", "alpha", "unitizing_alpha") if binary or s != "char_f1"]
    return names


def stored_names(severities: tuple[str, ...]) -> frozenset[str]:
    """Every statistic name the span computation stores."""
    names = statistic_names(severities, pair=False) + statistic_names(severities, pair=True)
    return frozenset({statistic_name(s, label) for s, label in names} | {KENDALL_TAU, SPAN_COUNTS})


@dataclass(frozen=True, eq=False)
class ScopeSpans:
    """Ratings (one per rater, segment and criterion, also those marking no span) and their spans.

    Per rating: ``segment`` (the judged output), ``criterion``, ``rater`` (ids), ``length`` (code points of
    the text the spans are in) and ``value`` (the rating's number: ESA's score, MQM's penalty). Per span:
    ``span_rating`` (index into the ratings), ``start``, ``end``, ``severity``; every span lies within its
    rating's text and has a severity of the project's list (the caller leaves out the others)."""

    segment: np.ndarray
    criterion: np.ndarray
    rater: np.ndarray
    length: np.ndarray
    value: np.ndarray
    span_rating: np.ndarray
    start: np.ndarray
    end: np.ndarray
    severity: np.ndarray


@dataclass(frozen=True)
class ScopeAgreement:
    """A scope's figures, each a span statistic under its stored name (``statistic_name``) with its rater pair as
    user ids; ``n_segments`` the segments rated by two raters or more, ``n_raters`` the raters with a rating on
    one of them."""

    figures: tuple[SpanStatistic, ...]
    n_segments: int
    n_raters: int


def span_scope_agreement(
    data: ScopeSpans,
    keep: np.ndarray,
    *,
    severities: tuple[str, ...],
    rng: np.random.Generator,
    n_resamples: int,
    pairs: bool,
) -> ScopeAgreement:
    """Span agreement on the ratings marked by ``keep``: a segment is one output on one criterion, so
    criteria pooled in a scope never pair with each other; with ``pairs`` also every rater pair."""
    rows = np.flatnonzero(keep)
    n_criteria = int(data.criterion.max(initial=0)) + 1
    segment_ids, segment_of = np.unique(data.segment[rows] * n_criteria + data.criterion[rows], return_inverse=True)
    rater_ids, rater_of = np.unique(data.rater[rows], return_inverse=True)
    lengths = np.zeros(len(segment_ids), dtype=np.int64)
    lengths[segment_of] = data.length[rows]
    position = np.full(len(data.segment), -1)
    position[rows] = np.arange(len(rows))
    mine = position[data.span_rating] >= 0 if len(data.span_rating) else np.zeros(0, dtype=bool)
    span_row = position[data.span_rating[mine]]
    spans = span_set(
        lengths,
        np.stack([segment_of, rater_of], axis=1),
        segment=segment_of[span_row],
        rater=rater_of[span_row],
        start=data.start[mine],
        end=data.end[mine],
        severity=data.severity[mine],
        severities=severities,
    )
    rated_per_segment = np.bincount(segment_of, minlength=len(segment_ids))
    pairable = rated_per_segment[segment_of] >= 2
    n_segments, n_raters = int((rated_per_segment >= 2).sum()), len(np.unique(rater_of[pairable]))
    try:
        result = span_agreement(spans, rng=rng, n_resamples=n_resamples, pairs=pairs)
    except InsufficientDataError as exc:
        figures = tuple(
            SpanStatistic(statistic_name(s, label), label, None, None, None, None, None, 0, reason=str(exc))
            for s, label in statistic_names(severities, pair=False)
        )
        return ScopeAgreement(figures, n_segments, n_raters)

    def rater(index):
        return None if index is None else int(rater_ids[index])

    figures = tuple(
        replace(
            s,
            statistic=statistic_name(s.statistic, s.label),
            rater_a=rater(s.rater_a),
            rater_b=rater(s.rater_b),
        )
        for s in result.statistics
    )
    return ScopeAgreement(figures, n_segments, n_raters)


def pair_kendall(data: ScopeSpans, keep: np.ndarray) -> tuple[SpanStatistic, ...]:
    """Kendall's tau-b between the numbers of every two raters on the segments both rated (ranking
    consistency of ESA scores or MQM penalties; a rater who scores everything 10 points lower agrees fully),
    with its Fisher-z interval."""
    rows = np.flatnonzero(keep)
    n_criteria = int(data.criterion.max(initial=0)) + 1
    _, unit = np.unique(data.segment[rows] * n_criteria + data.criterion[rows], return_inverse=True)
    rater_ids, rater_of = np.unique(data.rater[rows], return_inverse=True)
    matrix = np.full((len(rater_ids), int(unit.max(initial=-1)) + 1), np.nan)
    matrix[rater_of, unit] = data.value[rows]
    rated = ~np.isnan(matrix)
    shared = rated.astype(np.int64) @ rated.T.astype(np.int64)
    figures = []
    for a, b in zip(*np.nonzero(np.triu(shared, k=1)), strict=True):
        both = rated[a] & rated[b]
        try:
            r = rater_correlation(matrix[a, both], matrix[b, both], method="kendall")
        except InsufficientDataError as exc:
            figures.append(
                SpanStatistic(
                    KENDALL_TAU,
                    "score",
                    int(rater_ids[a]),
                    int(rater_ids[b]),
                    None,
                    None,
                    None,
                    int(both.sum()),
                    reason=str(exc),
                )
            )
            continue
        low, high = r.confidence_interval if r.confidence_interval is not None else (None, None)
        figures.append(
            SpanStatistic(
                KENDALL_TAU, "score", int(rater_ids[a]), int(rater_ids[b]), float(r.value), low, high, int(both.sum())
            )
        )
    return tuple(figures)
