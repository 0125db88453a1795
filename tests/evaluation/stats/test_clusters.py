"""Significance clusters: a line between neighbours only where everything above beats everything below."""

from evaluation.stats import significance_clusters


def pairs(*names):
    return {frozenset(p) for p in names}


def test_a_line_only_where_every_system_above_beats_every_system_below():
    ranked = ["a", "b", "c", "d"]
    # a and b are apart from c and d; c and d are not apart; a and b not apart
    significant = pairs(("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"))
    assert significance_clusters(ranked, significant) == [1, 1, 2, 2]


def test_a_chain_of_overlaps_keeps_one_cluster():
    # a beats c, but b sits between and differs from neither: no line can be drawn
    assert significance_clusters(["a", "b", "c"], pairs(("a", "c"))) == [1, 1, 1]


def test_every_pair_apart_gives_one_cluster_each_and_none_gives_one():
    ranked = ["a", "b", "c"]
    assert significance_clusters(ranked, pairs(("a", "b"), ("a", "c"), ("b", "c"))) == [1, 2, 3]
    assert significance_clusters(ranked, set()) == [1, 1, 1]
    assert significance_clusters([], set()) == []
