"""Automatic metrics computed from texts (no Django): ROUGE, BLEU, chrF, METEOR, length, distinct-n,
n-gram entropy and an embedding cosine from a model shipped inside a PyPI package.

Import everything from here; ``REGISTRY`` names every metric the platform computes.
"""

from .text import REGISTRY, MetricSpec, MetricUnavailable, compute_metrics, ngram_entropy, tokens

__all__ = ["REGISTRY", "MetricSpec", "MetricUnavailable", "compute_metrics", "ngram_entropy", "tokens"]
