r"""Agreement between raters on error spans (ESA, MQM): span-level F1, character-level kappa and alpha,
Krippendorff's unitizing alpha, each with a bootstrap interval over segments.

A span is ``[start, end)`` in Unicode code points of the segment's output, with a severity. Every
statistic is built from per-segment sums (contingency tables of the raters' character labels, span
match counts, sums of squared unit lengths), so a bootstrap replicate is one weighted sum of those
sums: the replicates of all statistics, pairs and labels come from one matrix product per block.

Labels. Each character gets, per rater, a label under each *scheme*: ``"any"`` (inside some span or
not), one binary scheme per severity (inside a span of that severity or not) and ``"severity"``
(none, or the most severe span covering it; severities are listed least severe first).

Overlapping spans of one rater are merged per severity at the character level (a character covered
twice is covered once) and, under ``"severity"``, the most severe wins. At the span level they are
kept as separate spans; a span marked twice with the same ``(start, end)`` (and severity, when
severity must match) counts once. Zero-length spans (something missing at a position) have no
characters: they count at the span level and match only a span with the same start and end.

Unitizing alpha. Within a segment the runs of equal label form a rater's units; the unlabelled gaps
count as single characters, as in [1]_. With :math:`o_{ck}` the character coincidences of labels
:math:`c, k` across raters (each pair of raters weighted :math:`1/(m_s - 1)` in a segment with
:math:`m_s` raters), :math:`l_c = \sum_k o_{ck}`, :math:`l = \sum_c l_c` and :math:`q_c` the sum
over units of label :math:`c` of their squared length (their length for the gaps),

.. math::

    e_{cc} = l\,\frac{l_c^2 - q_c}{l^2 - \sum_k q_k}, \qquad
    {}_u\alpha = 1 - \frac{l - \sum_c o_{cc}}{l - \sum_c e_{cc}}.

Character-level alpha is the nominal alpha of the same coincidences (units = characters); it
differs from unitizing alpha only in the expected coincidences, where a span's characters are not
paired with each other.

References
----------
.. [1] Krippendorff, K., Mathet, Y., Bouvry, S., & Widlöcher, A. (2016). On the reliability of
   unitizing textual continua: Further developments. Quality & Quantity, 50(6), 2347-2364.
   https://doi.org/10.1007/s11135-015-0266-1
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse

from ._validation import check_choice
from .bootstrap import METHODS, bca_interval
from .errors import InsufficientDataError
from .krippendorff import alpha_from_coincidences

STATISTICS = (
    "precision_exact",
    "recall_exact",
    "f1_exact",
    "precision_overlap",
    "recall_overlap",
    "f1_overlap",
    "matched_exact",
    "char_f1",
    "kappa",
    "alpha",
    "unitizing_alpha",
)
# A block of bootstrap weights holds at most this many cells (8 bytes each: 32 MB).
_BLOCK_CELLS = 4_000_000


@dataclass(frozen=True, eq=False)
class SpanSet:
    """Spans of several raters on the same segments, as index arrays (build it with :func:`span_set`).

    ``rating_segment[q]``, ``rating_rater[q]``: who rated which segment (also when they marked no
    span); ``span_rating[i]`` the rating a span belongs to; ``severity[i]`` a code ``1..K`` into
    ``severities``."""

    lengths: np.ndarray
    rating_segment: np.ndarray
    rating_rater: np.ndarray
    span_rating: np.ndarray
    start: np.ndarray
    end: np.ndarray
    severity: np.ndarray
    severities: tuple[str, ...]
    n_raters: int


@dataclass(frozen=True)
class SpanStatistic:
    """One statistic for one label scheme (``"spans"`` for the span-level ones) and one rater pair
    (``None`` for all raters). ``value`` is ``None`` when undefined, with the ``reason``; the interval
    is the bootstrap interval over segments (``None`` without resamples or when more than
    half of them are undefined) and ``n_failed`` the undefined replicates."""

    statistic: str
    label: str
    rater_a: int | None
    rater_b: int | None
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n_segments: int
    n_failed: int = 0
    reason: str | None = None


@dataclass(frozen=True)
class SpanAgreement:
    labels: tuple[str, ...]
    n_segments: int
    n_resamples: int
    confidence_level: float
    statistics: tuple[SpanStatistic, ...]

    def get(self, statistic: str, label: str = "spans", pair: tuple[int, int] | None = None) -> SpanStatistic:
        """The statistic for ``label`` and rater ``pair`` (``None``: all raters)."""
        a, b = (None, None) if pair is None else (min(pair), max(pair))
        for s in self.statistics:
            if s.statistic == statistic and s.label == label and s.rater_a == a and s.rater_b == b:
                return s
        raise KeyError(f"no {statistic!r} for label {label!r} and pair {pair!r}")


def span_set(lengths, ratings, *, segment, rater, start, end, severity, severities=("minor", "major")) -> SpanSet:
    """Check and index spans.

    Parameters
    ----------
    lengths : array_like of int, shape (n_segments,)
        Length of each segment's output in code points.
    ratings : array_like of int, shape (n_ratings, 2)
        ``(segment, rater)`` of every rating, including those that marked no span; rater ids are
        whole numbers from 0.
    segment, rater, start, end : array_like of int, shape (n_spans,)
        Each span's segment and rater (a rating listed in ``ratings``) and its ``[start, end)``.
    severity : array_like of str, shape (n_spans,)
        One of ``severities``.
    severities : tuple of str
        Least severe first.

    Raises
    ------
    ValueError
        Naming the first bad rating or span (by position): an index out of range, a rating listed
        twice, a span outside its segment or of a rating not listed, an unknown severity.
    """
    lengths = _ints(lengths, "lengths")
    if (lengths < 0).any():
        raise ValueError(f"lengths[{int(np.argmax(lengths < 0))}] is negative")
    pairs = np.asarray(ratings, dtype=np.int64).reshape(-1, 2)
    seg_q, rater_q = pairs[:, 0], pairs[:, 1]
    _check_range(seg_q, len(lengths), "ratings segment")
    _check_range(rater_q, None, "ratings rater")
    n_raters = int(rater_q.max()) + 1 if len(rater_q) else 0
    key_q = seg_q * max(n_raters, 1) + rater_q
    order = np.argsort(key_q, kind="stable")
    dup = np.flatnonzero(np.diff(key_q[order]) == 0)
    if dup.size:
        raise ValueError(f"ratings[{int(order[dup[0] + 1])}] lists segment and rater a second time")
    seg_i, rater_i = _ints(segment, "segment"), _ints(rater, "rater")
    start_i, end_i = _ints(start, "start"), _ints(end, "end")
    sev_names = np.asarray(severity, dtype=object)
    n = len(seg_i)
    if not all(len(a) == n for a in (rater_i, start_i, end_i, sev_names)):
        raise ValueError("segment, rater, start, end and severity must have one entry per span")
    _check_range(seg_i, len(lengths), "segment")
    codes = {name: k + 1 for k, name in enumerate(severities)}
    sev_i = np.fromiter((codes.get(s, 0) for s in sev_names), dtype=np.int64, count=n)
    if (sev_i == 0).any():
        i = int(np.argmax(sev_i == 0))
        raise ValueError(f"span {i}: severity {sev_names[i]!r} is not one of {', '.join(severities)}")
    bad = (start_i < 0) | (end_i < start_i) | (end_i > lengths[seg_i] if n else False)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"span {i}: [start, end) = [{start_i[i]}, {end_i[i]}) is not within segment {seg_i[i]} "
            f"of length {lengths[seg_i[i]]}"
        )
    sorted_keys = key_q[order]
    key_i = seg_i * max(n_raters, 1) + rater_i
    pos = np.searchsorted(sorted_keys, key_i)
    found = (pos < len(sorted_keys)) & (rater_i >= 0) & (rater_i < n_raters)
    found[found] = sorted_keys[pos[found]] == key_i[found]
    if not found.all():
        i = int(np.argmax(~found))
        raise ValueError(f"span {i}: segment {seg_i[i]}, rater {rater_i[i]} is not among the ratings")
    return SpanSet(lengths, seg_q, rater_q, order[pos], start_i, end_i, sev_i, tuple(severities), n_raters)


def span_agreement(
    spans: SpanSet,
    *,
    rng=None,
    n_resamples=1000,
    confidence_level=0.95,
    method="bca",
    match_severity=False,
    pairs=True,
) -> SpanAgreement:
    """Span-level precision/recall/F1 (exact and overlap match), character-level F1, Cohen's kappa and
    nominal Krippendorff's alpha per label scheme, and unitizing alpha, for every rater pair sharing a
    segment (``pairs=True``) and for all raters, with bootstrap intervals over segments.

    Parameters
    ----------
    spans : SpanSet
    rng : numpy.random.Generator
        Required when ``n_resamples > 0``.
    n_resamples : int
        Bootstrap replicates (0: point values only).
    confidence_level : float
    method : {"bca", "percentile"}
        ``"bca"`` (default): bias-corrected and accelerated, the acceleration from the jackknife over
        segments (:func:`~agreement.stats.bca_interval`); at 40 segments the percentile interval of
        alpha per severity covered 92% where BCa held 95% (tests/agreement/stats/test_spans_coverage.py).
    match_severity : bool
        Span-level matches (exact and overlap) also need the same severity.
    pairs : bool
        Also report every rater pair.

    Returns
    -------
    SpanAgreement
        Statistics named in ``STATISTICS``. Per pair, precision is that of ``rater_a`` against
        ``rater_b``. For all raters the counts of every pair are pooled, so precision equals recall
        (``matched_exact``: the share of distinct spans that another rater of the segment marked
        with the same start and end); ``kappa`` and ``char_f1`` are those of the pooled pair tables,
        ``alpha`` and ``unitizing_alpha`` the many-rater coefficients.

    Raises
    ------
    InsufficientDataError
        No segment was rated by two raters.

    Examples
    --------
    Two raters on one segment of 10 characters; they agree on one span and one marks another:

    >>> from agreement.stats.spans import span_agreement, span_set
    >>> s = span_set([10], [(0, 0), (0, 1)], segment=[0, 0, 0], rater=[0, 0, 1], start=[0, 5, 0],
    ...              end=[3, 7, 3], severity=["minor", "major", "minor"])
    >>> res = span_agreement(s, n_resamples=0)
    >>> res.get("f1_exact").value, round(res.get("alpha", "any").value, 3)
    (0.6666666666666666, 0.604)
    """
    level = _check_level(confidence_level)
    check_choice("method", method, METHODS)
    if n_resamples and not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator when n_resamples > 0")
    tables = _segment_tables(spans, match_severity)
    if tables.n_segments == 0:
        raise InsufficientDataError("no segment was rated by two raters: span agreement needs pairs")
    # Features summed over segments: the overall ones (dense) and, per pair, the same layout per pair.
    blocks: list[tuple[int | None, Any]] = [(None, tables.overall)]
    if pairs:
        blocks += [(p, tables.pair_features[p]) for p in range(len(tables.pair_raters))]
    point = [_from_sums(tables, np.asarray(m.sum(axis=0)).reshape(1, -1), p) for p, m in blocks]
    reps: list[list[dict]] = [[] for _ in blocks]
    jack = [_jackknife(tables, m, p) if n_resamples and method == "bca" else None for p, m in blocks]
    for weights in _weight_blocks(tables.n_segments, int(n_resamples), rng):
        for k, (p, m) in enumerate(blocks):
            reps[k].append(_from_sums(tables, np.asarray(m.T @ weights.T).T, p))
    out = []
    for k, (p, _) in enumerate(blocks):
        ra, rb = (None, None) if p is None else tuple(int(r) for r in tables.pair_raters[p])
        n_seg = tables.n_segments if p is None else int(tables.pair_segments[p])
        for key, value in point[k].items():
            stat, label = key
            if stat == "alpha" and p is None:
                value = _alpha_point(tables, label, value)
            rep = np.concatenate([r[key] for r in reps[k]]) if reps[k] else np.empty(0)
            jk = None if (jackknife := jack[k]) is None else jackknife[key]
            out.append(_statistic(stat, label, ra, rb, value, rep, jk, n_seg, level))
    return SpanAgreement(tables.schemes, tables.n_segments, int(n_resamples), level, tuple(out))


# --- per-segment tables --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Tables:
    schemes: tuple[str, ...]
    n_labels: tuple[int, ...]
    layout: dict
    n_segments: int
    overall: np.ndarray
    overall_coincidence: dict[str, np.ndarray]  # per scheme, (n_labels, n_labels): for the exact alpha point value
    pair_raters: np.ndarray
    pair_segments: np.ndarray
    pair_features: list


def _segment_tables(s: SpanSet, match_severity: bool) -> _Tables:
    k_sev = len(s.severities)
    schemes = ("any", *s.severities, "severity")
    n_labels = (2,) * (k_sev + 1) + (k_sev + 1,)
    n_q = len(s.rating_segment)
    m_seg = np.bincount(s.rating_segment, minlength=len(s.lengths))
    pairable_seg = m_seg >= 2
    seg_index = np.cumsum(pairable_seg) - 1  # pairable segment -> 0..n-1

    # characters of every rating laid end to end, one coverage array per severity
    len_q = s.lengths[s.rating_segment]
    off_q = np.concatenate([[0], np.cumsum(len_q)])
    n_chars = int(off_q[-1])
    cover = np.zeros((k_sev, n_chars + 1), dtype=np.int32)
    base = off_q[s.span_rating]
    np.add.at(cover, (s.severity - 1, base + s.start), 1)
    np.add.at(cover, (s.severity - 1, base + s.end), -1)
    covered = np.cumsum(cover, axis=1, dtype=np.int32)[:, :n_chars] > 0
    labels: list = [covered.any(axis=0).astype(np.int8)]
    labels += [covered[k].astype(np.int8) for k in range(k_sev)]
    severity_label = np.zeros(n_chars, dtype=np.int8)
    for k in range(k_sev):
        severity_label[covered[k]] = k + 1
    labels.append(severity_label)

    # pairs of ratings of the same segment (raters a < b)
    order = np.lexsort((s.rating_rater, s.rating_segment))
    qa_list, qb_list = [], []
    for step in range(1, int(m_seg.max(initial=0))):
        i, j = order[:-step], order[step:]
        same = s.rating_segment[i] == s.rating_segment[j]
        qa_list.append(i[same])
        qb_list.append(j[same])
    qa = np.concatenate(qa_list) if qa_list else np.empty(0, dtype=np.int64)
    qb = np.concatenate(qb_list) if qb_list else np.empty(0, dtype=np.int64)
    seg_r = s.rating_segment[qa]
    n_r = len(qa)

    # per pair row: contingency tables of the labels under every scheme
    layout, width = {}, 0

    def field(name, size):
        nonlocal width
        layout[name] = slice(width, width + size)
        width += size

    for name, nl in zip(schemes, n_labels, strict=True):
        field(("table", name), nl * nl)
        field(("sq", name), nl)
    field("counts", 5)
    rows = np.zeros((n_r, width))
    lens_r = s.lengths[seg_r]
    chars_a = _ragged(off_q[qa], lens_r)
    chars_b = _ragged(off_q[qb], lens_r)
    row_of_char = np.repeat(np.arange(n_r), lens_r)
    sq_q = {}
    q_of_char = np.repeat(np.arange(n_q), len_q)
    for name, nl, lab in zip(schemes, n_labels, labels, strict=True):
        code = row_of_char * nl * nl + lab[chars_a].astype(np.int64) * nl + lab[chars_b]
        rows[:, layout[("table", name)]] = np.bincount(code, minlength=n_r * nl * nl).reshape(n_r, nl * nl)
        sq_q[name] = _unit_squares(lab, q_of_char, off_q, n_q, nl)
        rows[:, layout[("sq", name)]] = sq_q[name][qa] + sq_q[name][qb]
    rows[:, layout["counts"]] = _span_counts(s, qa, qb, off_q, covered, match_severity)

    # the overall features of a segment: pooled pair tables, coincidences weighted 1/(m - 1), unit squares
    inv_m = 1.0 / (m_seg[seg_r] - 1)
    overall_layout = dict(layout)
    extra = {}
    for name, nl in zip(schemes, n_labels, strict=True):
        t = rows[:, layout[("table", name)]].reshape(n_r, nl, nl)
        extra[("coincidence", name)] = ((t + t.transpose(0, 2, 1)) * inv_m[:, None, None]).reshape(n_r, nl * nl)
    ow = width
    for key, val in extra.items():
        overall_layout[key] = slice(ow, ow + val.shape[1])
        ow += val.shape[1]
    overall_layout["matched"] = slice(ow, ow + 2)
    ow += 2
    to_segment = sparse.csr_matrix(
        (np.ones(n_r), (seg_index[seg_r], np.arange(n_r))), shape=(int(pairable_seg.sum()), n_r)
    )
    overall = np.zeros((int(pairable_seg.sum()), ow))
    overall[:, :width] = to_segment @ rows
    for key, val in extra.items():
        overall[:, overall_layout[key]] = to_segment @ val
    # unit squares of all ratings of pairable segments (not the pair sums)
    q_pairable = pairable_seg[s.rating_segment]
    for name in schemes:
        sl = overall_layout[("sq", name)]
        overall[:, sl] = 0.0
        np.add.at(overall[:, sl], seg_index[s.rating_segment[q_pairable]], sq_q[name][q_pairable])
    overall[:, overall_layout["matched"]] = _matched_any_other(s, seg_index, pairable_seg, len(overall), match_severity)

    # per pair: its rows summed into segments (sparse: a pair shares few segments)
    pair_key = s.rating_rater[qa] * max(s.n_raters, 1) + s.rating_rater[qb]
    uniq, pair_of_row = np.unique(pair_key, return_inverse=True)
    pair_raters = np.stack([uniq // max(s.n_raters, 1), uniq % max(s.n_raters, 1)], axis=1)
    pair_features = []
    by_pair = np.argsort(pair_of_row, kind="stable")
    for r in np.split(by_pair, np.cumsum(np.bincount(pair_of_row, minlength=len(uniq)))[:-1]):
        pair_features.append(
            sparse.csr_matrix((np.ones(len(r)), (seg_index[seg_r[r]], np.arange(len(r)))), shape=(len(overall), len(r)))
            @ sparse.csr_matrix(rows[r])
        )
    coincidence_sum = {
        name: overall[:, overall_layout[("coincidence", name)]].sum(axis=0).reshape(nl, nl)
        for name, nl in zip(schemes, n_labels, strict=True)
    }
    return _Tables(
        schemes,
        n_labels,
        {"pair": layout, "overall": overall_layout},
        len(overall),
        overall,
        coincidence_sum,
        pair_raters,
        np.bincount(pair_of_row, minlength=len(uniq)),
        [sparse.csr_matrix(f) for f in pair_features],
    )


def _ragged(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + c) for s, c in zip(starts, counts)])`` without the loop."""
    total = int(counts.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    before = np.cumsum(counts) - counts
    return np.repeat(starts - before, counts) + np.arange(total)


def _unit_squares(lab: np.ndarray, q_of_char: np.ndarray, off_q: np.ndarray, n_q: int, nl: int) -> np.ndarray:
    """Per rating and label, the sum of squared lengths of its runs of that label (gaps, label 0: their length)."""
    if lab.size == 0:
        return np.zeros((n_q, nl))
    boundary = np.ones(lab.size, dtype=bool)
    boundary[1:] = lab[1:] != lab[:-1]
    boundary[off_q[:-1][off_q[:-1] < lab.size]] = True
    run = np.cumsum(boundary) - 1
    length = np.bincount(run).astype(float)
    start = np.flatnonzero(boundary)
    run_label = lab[start].astype(np.int64)
    weight = np.where(run_label == 0, length, length**2)
    return np.bincount(q_of_char[start] * nl + run_label, weights=weight, minlength=n_q * nl).reshape(n_q, nl)


def _span_key(s: SpanSet, owner, start, end, sev) -> np.ndarray:
    """One int64 per (owner, start, end, severity), owner a rating or a segment index."""
    longest = int(s.lengths.max(initial=0)) + 1
    dims = (max(len(s.rating_segment), len(s.lengths)), longest, longest, len(s.severities) + 1)
    return np.ravel_multi_index((owner, start, end, sev), dims)


def _distinct_spans(s: SpanSet, match_severity: bool):
    """Indices of the distinct spans (per rating: ``(start, end)``, and severity when it must match)."""
    sev = s.severity if match_severity else np.zeros_like(s.severity)
    _, first = np.unique(_span_key(s, s.span_rating, s.start, s.end, sev), return_index=True)
    return np.sort(first), sev


def _span_counts(s, qa, qb, off_q, covered, match_severity) -> np.ndarray:
    """Per pair row: spans of a, spans of b, exact matches, a's spans overlapping b's, b's overlapping a's."""
    n_r = len(qa)
    out = np.zeros((n_r, 5))
    idx, sev = _distinct_spans(s, match_severity)
    q_span = s.span_rating[idx]
    n_per_q = np.bincount(q_span, minlength=len(s.rating_segment))
    out[:, 0], out[:, 1] = n_per_q[qa], n_per_q[qb]
    order = idx[np.argsort(q_span, kind="stable")]
    first_of_q = np.cumsum(n_per_q) - n_per_q
    # prefix sums of coverage: any severity (layer 0), or the span's own severity
    layers = [covered.any(axis=0)] + (list(covered) if match_severity else [])
    prefix = np.zeros((len(layers), covered.shape[1] + 1), dtype=np.int32)
    for k, layer_cover in enumerate(layers):
        np.cumsum(layer_cover, out=prefix[k, 1:], dtype=np.int32)
    distinct = np.sort(_span_key(s, s.span_rating[idx], s.start[idx], s.end[idx], sev[idx]))
    for col, (mine, other) in ((3, (qa, qb)), (4, (qb, qa))):
        row = np.repeat(np.arange(n_r), n_per_q[mine])
        span = order[_ragged(first_of_q[mine], n_per_q[mine])]
        layer = sev[span]
        # exact: does the other rating hold a distinct span with the same (start, end[, severity])?
        probe = _span_key(s, other[row], s.start[span], s.end[span], layer)
        at = np.minimum(np.searchsorted(distinct, probe), max(len(distinct) - 1, 0))
        exact = distinct[at] == probe if len(distinct) else np.zeros(len(probe), dtype=bool)
        base = off_q[other[row]]
        overlap = prefix[layer, base + s.end[span]] - prefix[layer, base + s.start[span]] > 0
        out[:, col] = np.bincount(row, weights=overlap | exact, minlength=n_r)
        if col == 3:
            out[:, 2] = np.bincount(row, weights=exact, minlength=n_r)
    return out


def _matched_any_other(s, seg_index, pairable_seg, n_seg, match_severity) -> np.ndarray:
    """Per pairable segment: distinct spans matched exactly by another rater, and all distinct spans."""
    idx, sev = _distinct_spans(s, match_severity)
    seg = s.rating_segment[s.span_rating[idx]]
    keep = pairable_seg[seg]
    idx, seg = idx[keep], seg[keep]
    out = np.zeros((n_seg, 2))
    if idx.size == 0:
        return out
    _, inv, counts = np.unique(
        _span_key(s, seg, s.start[idx], s.end[idx], sev[idx]), return_inverse=True, return_counts=True
    )
    matched = counts[inv] >= 2
    out[:, 0] = np.bincount(seg_index[seg], weights=matched, minlength=n_seg)
    out[:, 1] = np.bincount(seg_index[seg], minlength=n_seg)
    return out


# --- statistics from summed features (vectorised over replicates) -----------------------------------


def _from_sums(t: _Tables, f: np.ndarray, pair) -> dict:
    """Every statistic from features ``f`` (n_replicates, width) summed over (weighted) segments."""
    lay = t.layout["overall" if pair is None else "pair"]
    out = {}
    c = f[:, lay["counts"]]
    n_a, n_b, ex, ov_a, ov_b = c.T
    with np.errstate(divide="ignore", invalid="ignore"):
        if pair is None:
            out["f1_exact", "spans"] = 2 * ex / (n_a + n_b)
            out["f1_overlap", "spans"] = (ov_a + ov_b) / (n_a + n_b)
            matched = f[:, lay["matched"]]
            out["matched_exact", "spans"] = matched[:, 0] / matched[:, 1]
        else:
            p_ex, r_ex = ex / n_a, ex / n_b
            p_ov, r_ov = ov_a / n_a, ov_b / n_b
            out["precision_exact", "spans"], out["recall_exact", "spans"] = p_ex, r_ex
            out["f1_exact", "spans"] = 2 * ex / (n_a + n_b)
            out["precision_overlap", "spans"], out["recall_overlap", "spans"] = p_ov, r_ov
            out["f1_overlap", "spans"] = 2 * p_ov * r_ov / (p_ov + r_ov)
        for name, nl in zip(t.schemes, t.n_labels, strict=True):
            table = f[:, lay["table", name]].reshape(-1, nl, nl)
            if nl == 2:
                out["char_f1", name] = 2 * table[:, 1, 1] / (table[:, 1, :].sum(-1) + table[:, :, 1].sum(-1))
            out["kappa", name] = _kappa(table)
            o = f[:, lay["coincidence", name]].reshape(-1, nl, nl) if pair is None else table + table.transpose(0, 2, 1)
            out["alpha", name] = _nominal_alpha(o)
            out["unitizing_alpha", name] = _unitizing_alpha(o, f[:, lay["sq", name]])
    return out


def _kappa(table: np.ndarray) -> np.ndarray:
    n = table.sum(axis=(1, 2))
    po = np.trace(table, axis1=1, axis2=2) / n
    pe = (table.sum(2) * table.sum(1)).sum(1) / n**2
    return np.where(pe < 1 - 1e-12, (po - pe) / (1 - pe), np.nan)


def _nominal_alpha(o: np.ndarray) -> np.ndarray:
    n = o.sum(axis=(1, 2))
    nc = o.sum(axis=2)
    de = n**2 - (nc**2).sum(1)
    return np.where(de > 1e-9, 1 - (n - 1) * (n - np.trace(o, axis1=1, axis2=2)) / de, np.nan)


def _unitizing_alpha(o: np.ndarray, sq: np.ndarray) -> np.ndarray:
    ll = o.sum(axis=(1, 2))
    lc = o.sum(axis=2)
    e_diag = ll[:, None] * (lc**2 - sq) / (ll**2 - sq.sum(1))[:, None]
    expected = ll - e_diag.sum(1)
    return np.where(expected > 1e-9, 1 - (ll - np.trace(o, axis1=1, axis2=2)) / expected, np.nan)


def _alpha_point(t: _Tables, label: str, value: np.ndarray) -> np.ndarray:
    """The all-rater point alpha through the library's own alpha (the vectorised one serves the replicates)."""
    o = t.overall_coincidence[label]
    try:
        res = alpha_from_coincidences(
            o, np.arange(o.shape[0], dtype=float), n_units=1, n_raters=2, level_of_measurement="nominal"
        )
    except InsufficientDataError:
        return np.array([np.nan])
    return np.array([res.value])


_REASONS = {
    "precision_exact": "the first rater marked no span",
    "recall_exact": "the second rater marked no span",
    "precision_overlap": "the first rater marked no span",
    "recall_overlap": "the second rater marked no span",
    "f1_exact": "no span was marked",
    "f1_overlap": "no span was marked, or no span overlaps another",
    "matched_exact": "no span was marked",
    "char_f1": "no character was marked with this label",
    "kappa": "a single label in use (e.g. no character marked)",
    "alpha": "a single label in use (e.g. no character marked)",
    "unitizing_alpha": "no disagreement is expected by chance (e.g. no character marked)",
}


def _jackknife(t: _Tables, m, pair) -> dict:
    """Every statistic with each segment left out in turn; a segment without features for a pair (one
    it did not share) leaves the full-data value."""
    total = np.asarray(m.sum(axis=0)).reshape(1, -1)
    rows: np.ndarray | slice
    if sparse.issparse(m):
        rows = np.flatnonzero(m.getnnz(axis=1))
        left = total - m[rows].toarray()
    else:
        rows, left = slice(None), total - m
    full = _from_sums(t, total, pair)
    out = {}
    for key, value in _from_sums(t, left, pair).items():
        out[key] = np.full(m.shape[0], full[key][0])
        out[key][rows] = value
    return out


def _statistic(stat, label, ra, rb, value, rep, jack, n_seg, level) -> SpanStatistic:
    v = float(value[0])
    if not np.isfinite(v):
        return SpanStatistic(stat, label, ra, rb, None, None, None, n_seg, len(rep), _REASONS[stat])
    ok = rep[np.isfinite(rep)]
    failed = len(rep) - len(ok)
    low = high = None
    if len(rep) and len(ok) * 2 > len(rep):
        if jack is None:
            tail = (1 - level) / 2
            low, high = (float(x) for x in np.quantile(ok, [tail, 1 - tail]))
        else:
            low, high = (float(x) for x in bca_interval(ok, v, jack, confidence_level=level))
    return SpanStatistic(stat, label, ra, rb, v, low, high, n_seg, failed)


def _weight_blocks(n_units: int, n_resamples: int, rng):
    """Blocks of bootstrap weights (how often each segment is drawn), shape (block, n_units)."""
    block = max(1, min(n_resamples, _BLOCK_CELLS // max(n_units, 1)))
    done = 0
    while done < n_resamples:
        size = min(block, n_resamples - done)
        draws = rng.integers(0, n_units, size=(size, n_units)) + (np.arange(size) * n_units)[:, None]
        yield np.bincount(draws.ravel(), minlength=size * n_units).reshape(size, n_units).astype(float)
        done += size


def _ints(values, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must be a 1-D array of whole numbers")
    return arr.astype(np.int64)


def _check_range(values: np.ndarray, upper: int | None, name: str) -> None:
    bad = (values < 0) | (values >= upper if upper is not None else False)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(f"{name}[{i}] = {values[i]} is out of range")


def _check_level(level) -> float:
    if isinstance(level, bool) or not isinstance(level, int | float) or not 0 < level < 1:
        raise ValueError(f"confidence_level must be between 0 and 1 (exclusive), got {level!r}")
    return float(level)
