"""span_scopes: a scope's ratings become span_agreement's segments and raters, its results named figures;
criteria pooled in a scope never pair; Kendall's tau per pair against scipy."""

import numpy as np
import pytest
from scipy import stats

from agreement.engine.span_scopes import (
    ScopeSpans,
    pair_kendall,
    span_scope_agreement,
    statistic_name,
    statistic_names,
)
from agreement.stats.spans import span_agreement, span_set

SEVERITIES = ("minor", "major")


def study(seed, n_outputs=30, raters=(11, 22, 33), n_criteria=1):
    """Every rater on every output and criterion, with random spans; rater ids are user ids."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 40, size=n_outputs)
    ratings, spans = [], []
    for out in range(n_outputs):
        for c in range(n_criteria):
            for rater in raters:
                ratings.append((1000 + out, c, rater, lengths[out], float(rng.integers(0, 101))))
                for _ in range(rng.integers(0, 3)):
                    a, b = sorted(rng.integers(0, lengths[out] + 1, size=2))
                    spans.append((len(ratings) - 1, a, b, SEVERITIES[rng.integers(0, 2)]))
    r = list(zip(*ratings, strict=True))
    s = list(zip(*spans, strict=True))
    return ScopeSpans(
        segment=np.array(r[0]),
        criterion=np.array(r[1]),
        rater=np.array(r[2]),
        length=np.array(r[3]),
        value=np.array(r[4]),
        span_rating=np.array(s[0]),
        start=np.array(s[1], dtype=np.int64),
        end=np.array(s[2], dtype=np.int64),
        severity=np.array(s[3], dtype=object),
    )


def direct(data, keep):
    """The same scope built by hand, segments numbered in first-seen order, raters by position."""
    rows = np.flatnonzero(keep)
    seg_ids = {}
    for r in rows:
        seg_ids.setdefault((data.segment[r], data.criterion[r]), len(seg_ids))
    raters = sorted(set(data.rater[rows].tolist()))
    lengths = np.zeros(len(seg_ids), dtype=np.int64)
    ratings = []
    for r in rows:
        k = seg_ids[(data.segment[r], data.criterion[r])]
        lengths[k] = data.length[r]
        ratings.append((k, raters.index(data.rater[r])))
    idx = [i for i, q in enumerate(data.span_rating) if keep[q]]
    q = data.span_rating[idx]
    spans = span_set(
        lengths,
        ratings,
        segment=[ratings[list(rows).index(x)][0] for x in q],
        rater=[ratings[list(rows).index(x)][1] for x in q],
        start=data.start[idx],
        end=data.end[idx],
        severity=data.severity[idx],
        severities=SEVERITIES,
    )
    return span_agreement(spans, n_resamples=0), raters


def test_figures_are_span_agreement_on_the_scope_named_per_label_and_pair():
    data = study(1)
    keep = data.rater != 33
    keep[:9] = False  # the first outputs out of the scope
    got = span_scope_agreement(
        data, keep, severities=SEVERITIES, rng=np.random.default_rng(0), n_resamples=0, pairs=True
    )
    expected, raters = direct(data, keep)
    assert got.n_raters == 2 and got.n_segments == 27
    by_name = {(f.statistic, f.rater_a, f.rater_b): f for f in got.figures}
    for s in expected.statistics:
        pair = (None, None) if s.rater_a is None else (raters[s.rater_a], raters[s.rater_b])
        figure = by_name[(statistic_name(s.statistic, s.label), *pair)]
        assert figure.value == s.value and figure.label == s.label
    assert by_name[("unitizing_alpha_any", 11, 22)].value is not None
    assert by_name[("char_kappa_major", None, None)].value is not None


def test_criteria_pooled_in_a_scope_never_pair_with_each_other():
    # the same output judged on two criteria by one rater each: no segment has two raters
    data = study(2, raters=(11,), n_criteria=2)
    got = span_scope_agreement(
        data,
        np.ones(len(data.segment), dtype=bool),
        severities=SEVERITIES,
        rng=np.random.default_rng(0),
        n_resamples=0,
        pairs=True,
    )
    assert got.n_segments == 0
    assert {(f.statistic, f.label) for f in got.figures} == {
        (statistic_name(s, label), label) for s, label in statistic_names(SEVERITIES, pair=False)
    }
    assert all(f.value is None and "two raters" in f.reason for f in got.figures)


def test_bootstrap_intervals_surround_the_values():
    data = study(3, n_outputs=60)
    got = span_scope_agreement(
        data,
        np.ones(len(data.segment), dtype=bool),
        severities=SEVERITIES,
        rng=np.random.default_rng(0),
        n_resamples=200,
        pairs=False,
    )
    alpha = next(f for f in got.figures if f.statistic == "unitizing_alpha_any")
    assert alpha.ci_low < alpha.value < alpha.ci_high


def test_kendall_tau_per_pair_is_scipys_on_the_shared_segments():
    data = study(4)
    keep = np.ones(len(data.segment), dtype=bool)
    keep[(data.rater == 33) & (data.segment < 1010)] = False
    figures = {(f.rater_a, f.rater_b): f for f in pair_kendall(data, keep)}
    assert set(figures) == {(11, 22), (11, 33), (22, 33)}
    a, b = (data.value[keep & (data.rater == r) & (data.segment >= 1010)] for r in (22, 33))
    assert figures[(22, 33)].value == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)
    assert figures[(22, 33)].n_segments == 20
    assert figures[(22, 33)].ci_low < figures[(22, 33)].value < figures[(22, 33)].ci_high


def test_kendall_tau_of_a_rater_with_one_score_says_why_it_is_undefined():
    data = study(5)
    constant = ScopeSpans(**{**data.__dict__, "value": np.where(data.rater == 11, 50.0, data.value)})
    figures = {(f.rater_a, f.rater_b): f for f in pair_kendall(constant, np.ones(len(data.segment), dtype=bool))}
    assert figures[(11, 22)].value is None and "same score" in figures[(11, 22)].reason
    assert figures[(22, 33)].value is not None
