"""Error-span results from a project's ratings as arrays: MQM by the project's weights per segment, system and
category, ESA from the coded score, and the WMT ranking with intervals; the degenerate cases."""

import json

import numpy as np
import pytest

from annotation.selectors.error_spans import SpanRatings
from evaluation.services.error_span_results import (
    SpanResultOptions,
    SpanScoring,
    error_span_criterion,
    rating_scores,
)
from evaluation.stats import WMT_MQM_WEIGHTS, mqm_scores, rank_systems


def ratings(rows, spans):
    """``rows``: (item, output, rater, system, subgroup, value); ``spans``: (rating index, severity, category)."""
    n, m = len(rows), len(spans)
    col = list(zip(*rows, strict=True)) if rows else [()] * 6
    scol = list(zip(*spans, strict=True)) if spans else [()] * 3
    return SpanRatings(
        judgment=np.arange(n, dtype=np.int64),
        item=np.array(col[0], dtype=np.int64),
        output=np.array(col[1], dtype=np.int64),
        criterion=np.ones(n, dtype=np.int64),
        rater=np.array(col[2], dtype=np.int64),
        system=np.array(col[3], dtype=object),
        subgroup=np.array(col[4], dtype=object),
        submitted_at=np.zeros(n, dtype="datetime64[us]"),
        value=np.array(col[5], dtype=float),
        target_length=np.full(n, 20, dtype=np.int64),
        source_length=np.full(n, 20, dtype=np.int64),
        span_rating=np.array(scol[0], dtype=np.int64),
        side=np.array(["target"] * m, dtype=object),
        start=np.zeros(m, dtype=np.int64),
        end=np.ones(m, dtype=np.int64),
        severity=np.array(scol[1], dtype=object),
        category=np.array(scol[2], dtype=object),
        origin=np.array(["added"] * m, dtype=object),
    )


MQM = SpanScoring(higher_is_better=False, weight=WMT_MQM_WEIGHTS.weight, weights="WMT")
FAST = SpanResultOptions(n_resamples=200, segments=True)


def random_mqm(seed=0, n_items=30, systems=("A", "B", "C")):
    rng = np.random.default_rng(seed)
    cats = ["Accuracy/Mistranslation", "Fluency/Punctuation", "Style/Awkward", "Non-translation"]
    rows, spans = [], []
    for i in range(n_items):
        for s, system in enumerate(systems):
            for rater in rng.choice(5, size=int(rng.integers(1, 4)), replace=False):
                rows.append((i, i * 10 + s, int(rater), system, "news" if i % 2 else "web", 0.0))
                for _ in range(int(rng.poisson(1 + s))):
                    spans.append((len(rows) - 1, str(rng.choice(["Major", "Minor"])), str(rng.choice(cats[:3]))))
    spans.append((0, "Major", cats[3]))
    spans.sort(key=lambda x: x[0])
    return ratings(rows, spans)


def test_mqm_scores_equal_the_library_on_rows_with_no_error_rows():
    r = random_mqm()
    out = error_span_criterion(r, "MQM", MQM, FAST)
    # the same study as WMT's rows: one row per span, a No-error row per rating without spans
    with_span = set(r.span_rating.tolist())
    rows = [(r.system[k], r.item[k], r.rater[k], r.severity[j], r.category[j]) for j, k in enumerate(r.span_rating)]
    rows += [(r.system[k], r.item[k], r.rater[k], "No-error", "No-error") for k in range(len(r)) if k not in with_span]
    lib = mqm_scores(*zip(*rows, strict=True))
    segments = {(row.item, row.system): row.score for row in out.segments}
    for system, segment, score in zip(lib.segment_system, lib.segment, lib.segment_score, strict=True):
        assert segments[str(int(segment)), system] == pytest.approx(score)
    micro = {row.system: row.micro for row in out.systems}
    assert micro == pytest.approx(dict(zip(lib.systems, lib.system_score, strict=True)))
    # the category shares add up to each system's (micro) score
    for s, system in enumerate(lib.systems):
        shares = {c.category: c.systems.get(system, 0.0) for c in out.categories}
        assert sum(shares.values()) == pytest.approx(micro[system])
        library = dict(zip(lib.categories, lib.category_score[s], strict=True))
        assert library.pop("No-error") == 0.0
        assert shares == pytest.approx(library)


def test_the_ranking_is_wmts_on_segment_means_over_subgroups():
    r = random_mqm(seed=1)
    out = error_span_criterion(r, "MQM", MQM, FAST)
    seg = out.segments
    expected = rank_systems(
        [x.system for x in seg],
        [x.item for x in seg],
        [x.score for x in seg],
        domain=["news" if int(x.item) % 2 else "web" for x in seg],
        higher_is_better=False,
        rng=np.random.default_rng(0),
        n_resamples=200,
    )
    assert [x.system for x in out.systems] == [x.system for x in expected.systems]
    for row, x in zip(out.systems, expected.systems, strict=True):
        assert row.mean == pytest.approx(x.score)
        assert row.mean_ci == pytest.approx([x.ci_low, x.ci_high])
        assert tuple(row.rank) == x.rank and row.cluster == x.cluster
    assert out.systems[0].system == "A"  # fewest errors: MQM's lower is better
    assert {(c.system_a, c.system_b) for c in out.comparisons} == {("A", "B"), ("A", "C"), ("B", "C")}
    for c in out.comparisons:
        assert c.p_value == pytest.approx(expected.p_values[frozenset((c.system_a, c.system_b))])
        assert c.significant == (c.p_value < 0.05)


def test_esa_scores_are_the_coded_values_higher_is_better():
    rows = [(i, i * 10 + s, 0, sys, "", 90.0 - 20 * s + i % 3) for i in range(12) for s, sys in enumerate("XY")]
    r = ratings(rows, [(1, "major", ""), (3, "minor", "")])
    out = error_span_criterion(r, "ESA", SpanScoring(higher_is_better=True), FAST)
    assert [s.system for s in out.systems] == ["X", "Y"]
    assert out.systems[0].mean == pytest.approx(np.mean([90.0 + i % 3 for i in range(12)]))
    assert out.systems[1].severities == {"major": 1, "minor": 1}
    assert out.categories == () and out.weights is None and out.n_spans == 2
    assert rating_scores(r, SpanScoring(True)).weight is None


def test_no_spans_at_all_scores_zero():
    rows = [(i, i * 10 + s, 0, sys, "", 0.0) for i in range(4) for s, sys in enumerate("XY")]
    out = error_span_criterion(ratings(rows, []), "MQM", MQM, FAST)
    assert [s.mean for s in out.systems] == [0.0, 0.0]
    assert all(s.n_spans == 0 and s.rank == [1, 2] for s in out.systems)
    assert out.comparisons[0].p_value == 1.0 and out.categories == ()


def test_one_system_has_scores_but_no_ranking():
    out = error_span_criterion(ratings([(0, 0, 0, "X", "", 0.0)], [(0, "Major", "Accuracy")]), "MQM", MQM, FAST)
    assert out.error == "ranking needs at least two systems"
    assert out.systems[0].mean == 5.0 and out.systems[0].rank is None


def test_no_judgments_says_so():
    out = error_span_criterion(ratings([], []), "MQM", MQM, FAST)
    assert out.error == "no judgments on this criterion yet" and out.systems == ()


def test_the_json_form_is_the_untyped_one():
    keys = ["criterion", "higher_is_better", "weights", "n_judgments", "n_items", "n_raters", "n_spans", "alpha"]
    keys += ["systems", "comparisons", "categories", "error"]
    with_segments = error_span_criterion(random_mqm(), "MQM", MQM, FAST).to_json()
    assert list(with_segments) == [*keys, "segments"]
    assert json.loads(json.dumps(with_segments)) == with_segments
    assert list(with_segments["segments"][0]) == ["item", "system", "score", "n_raters"]
    assert list(with_segments["comparisons"][0]) == [
        "system_a",
        "system_b",
        "difference",
        "n_items",
        "p_value",
        "significant",
    ]
    without = error_span_criterion(random_mqm(), "MQM", MQM, SpanResultOptions(n_resamples=0)).to_json()
    assert list(without) == keys
