"""Significance clusters of systems ranked by score, as WMT's human evaluations report them (e.g. Kocmi et al.,
"Findings of the 2023 Conference on Machine Translation", sec. 3): a line is drawn between two neighbours in
the ranking only where every system above it is significantly better than every system below it, so that
systems within a cluster are not told apart by the tests and each cluster is apart from the next."""


def significance_clusters(ranked: list[str], significant: set[frozenset[str]]) -> list[int]:
    """The cluster (1 = top) of each system of ``ranked`` (best first), given the pairs ``significant``
    (each a frozenset of two system names) whose difference holds after correction."""
    clusters, cluster = [], 1
    for k in range(len(ranked)):
        if k and all(frozenset((above, below)) in significant for above in ranked[:k] for below in ranked[k:]):
            cluster += 1
        clusters.append(cluster)
    return clusters
