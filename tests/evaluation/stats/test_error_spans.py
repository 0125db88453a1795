"""MQM scores and WMT's system ranking (evaluation.stats.error_spans) on hand-made data, against scipy
and a transcription of WMT24's cluster rule; the real-data reproductions are in
tests/evaluation/datasets/test_error_span_datasets.py."""

import numpy as np
import pytest
from scipy import stats

from evaluation.stats import (
    MAROT_MQM_WEIGHTS,
    WMT_MQM_WEIGHTS,
    InsufficientDataError,
    MqmWeights,
    mqm_row_weights,
    mqm_scores,
    rank_systems,
)


@pytest.mark.parametrize(
    ("severity", "category", "wmt", "marot"),
    [
        ("Major", "Accuracy/Mistranslation", 5, 5),
        ("Minor", "Accuracy/Mistranslation", 1, 1),
        ("Minor", "Fluency/Punctuation", 0.1, 0.1),
        ("Major", "Fluency/Punctuation", 5, 5),
        ("Major", "Non-translation!", 25, 25),
        ("Minor", "Non-translation", 25, 25),
        ("No-error", "No-error", 0, 0),
        ("Neutral", "Other", 0, 0),
        ("Major", "Source issue", 5, 0),
        ("Minor", "Style/Creative Reinterpretation", 1, 0),
        ("Critical", "Accuracy/Omission", 5, 5),
    ],
)
def test_weights(severity, category, wmt, marot):
    assert mqm_row_weights([severity], [category])[0] == pytest.approx(wmt)
    assert mqm_row_weights([severity], [category], weights=MAROT_MQM_WEIGHTS)[0] == pytest.approx(marot)


def test_a_row_no_rule_covers_is_named():
    with pytest.raises(ValueError, match=r"row 1: no wmt MQM weight for severity 'Trivial', category 'Other'"):
        mqm_row_weights(["Minor", "Trivial"], ["Other", "Other"])
    custom = MqmWeights("project", ((r"^trivial:", 0.5), *WMT_MQM_WEIGHTS.rules))
    assert mqm_row_weights(["Trivial"], ["Other"], weights=custom)[0] == 0.5


def test_scores_average_raters_then_segments_and_categories_add_up():
    # system A: segment 1 rated by r1 (major 5 + minor 1) and r2 (no error) -> 3; segment 2 by r1: 0.1
    s = mqm_scores(
        ["A", "A", "A", "A", "B"],
        [1, 1, 1, 2, 1],
        ["r1", "r1", "r2", "r1", "r3"],
        ["Major", "Minor", "No-error", "Minor", "Minor"],
        ["Accuracy/Mistranslation", "Style/Awkward", "No-error", "Fluency/Punctuation", "Style/Awkward"],
    )
    assert s.systems == ("A", "B")
    assert s.system_score.tolist() == pytest.approx([(3 + 0.1) / 2, 1.0])
    assert s.segment_score.tolist() == pytest.approx([3.0, 0.1, 1.0])
    assert s.segment_raters.tolist() == [2, 1, 1]
    assert s.category_score.sum(axis=1) == pytest.approx(s.system_score)
    cat = dict(zip(s.categories, s.category_score[0], strict=True))
    assert cat["Accuracy/Mistranslation"] == pytest.approx(5 / 2 / 2)
    assert cat["No-error"] == 0


def test_nothing_to_score():
    with pytest.raises(InsufficientDataError):
        mqm_scores([], [], [], [], [])


def wmt_get_clusters(order, p, alpha=0.05):
    """WMT24 humeval/tools.py get_clusters, transcribed: the independent check of the cluster lines."""
    clusters, until, last = {}, -1, 1
    for i, a in enumerate(order):
        if until <= i:
            until = -1
        for j in range(i + 1, len(order)):
            if p[frozenset((a, order[j]))] > alpha:
                until = max(j, until)
        clusters[a] = last
        if until == -1:
            last += 1
    return clusters


def toy_study(seed, n_systems=6, per_domain=30, domains=("news", "speech")):
    rng = np.random.default_rng(seed)
    quality = np.linspace(80, 90, n_systems)
    system, segment, score, domain = [], [], [], []
    for d_i, d in enumerate(domains):
        for k in range(per_domain):
            seg = d_i * per_domain + k
            base = rng.normal(0, 8)
            for s in range(n_systems):
                system.append(f"S{s}")
                segment.append(seg)
                score.append(float(np.clip(np.round(quality[s] + base + rng.normal(0, 6)), 0, 100)))
                domain.append(d)
    return system, segment, score, domain


def test_ranking_p_values_rank_ranges_and_clusters():
    system, segment, score, domain = toy_study(1)
    r = rank_systems(system, segment, score, domain=domain, rng=np.random.default_rng(0), n_resamples=500)
    names = [x.system for x in r.systems]
    assert [x.score for x in r.systems] == sorted((x.score for x in r.systems), reverse=True)
    # one pair by hand: per-domain Wilcoxon, Stouffer
    x = np.array(score)
    sys_, dom, seg = np.array(system), np.array(domain), np.array(segment)
    z = []
    for d in ("news", "speech"):
        a = x[(sys_ == "S0") & (dom == d)][np.argsort(seg[(sys_ == "S0") & (dom == d)])]
        b = x[(sys_ == "S5") & (dom == d)][np.argsort(seg[(sys_ == "S5") & (dom == d)])]
        z.append(stats.norm.ppf(1 - stats.wilcoxon(a - b).pvalue))
    assert r.p_values[frozenset(("S0", "S5"))] == pytest.approx(1 - stats.norm.cdf(sum(z) / np.sqrt(2)))
    assert {x.system: x.cluster for x in r.systems} == wmt_get_clusters(names, r.p_values)
    for row in r.systems:
        better = sum(
            1
            for o in r.systems
            if o.system != row.system and r.p_values[frozenset((row.system, o.system))] < 0.05 and o.score > row.score
        )
        assert row.rank[0] == better + 1
        assert row.ci_low < row.score < row.ci_high
        assert row.n_segments == 60
        assert row.score == pytest.approx(np.mean(list(row.domain_scores.values())))


@pytest.mark.parametrize("seed", range(5))
def test_clusters_equal_wmts_rule_on_random_studies(seed):
    system, segment, score, domain = toy_study(seed + 10, n_systems=8, per_domain=15)
    r = rank_systems(system, segment, score, domain=domain, n_resamples=0)
    assert {x.system: x.cluster for x in r.systems} == wmt_get_clusters([x.system for x in r.systems], r.p_values)


def test_lower_is_better_for_mqm():
    system, segment, score, domain = toy_study(2)
    up = rank_systems(system, segment, score, domain=domain, n_resamples=0)
    down = rank_systems(system, segment, [-v for v in score], domain=domain, higher_is_better=False, n_resamples=0)
    assert [x.system for x in up.systems] == [x.system for x in down.systems]
    assert [x.rank for x in up.systems] == [x.rank for x in down.systems]


def test_ranking_bad_input():
    with pytest.raises(ValueError, match=r"row 1: system 'A' is scored twice"):
        rank_systems(["A", "A", "B"], [1, 1, 1], [1.0, 2.0, 3.0], n_resamples=0)
    with pytest.raises(ValueError, match=r"score\[0\] is not a finite number"):
        rank_systems(["A", "B"], [1, 1], [np.nan, 2.0], n_resamples=0)
    with pytest.raises(InsufficientDataError):
        rank_systems(["A", "A"], [1, 2], [1.0, 2.0], n_resamples=0)
    with pytest.raises(ValueError, match="Generator"):
        rank_systems(["A", "B"], [1, 1], [1.0, 2.0])
