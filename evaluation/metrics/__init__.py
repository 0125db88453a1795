"""Automatic metrics computed from texts (no Django): the ROUGE-1.5.5 family, rouge-score's ROUGE,
BLEU, chrF, METEOR with WordNet synonyms, length, distinct-n, n-gram entropy and an embedding
cosine from a model shipped inside a PyPI package.

Import everything from here; ``REGISTRY`` names the metrics offered by name, ``metric_spec``
also resolves parameterised ROUGE-1.5.5 names.
"""

from .base import MetricResources, MetricSpec, MetricUnavailable
from .text import REGISTRY, compute_metrics, metric_spec, ngram_entropy, tokens

__all__ = [
    "REGISTRY",
    "MetricResources",
    "MetricSpec",
    "MetricUnavailable",
    "compute_metrics",
    "metric_spec",
    "ngram_entropy",
    "tokens",
]
