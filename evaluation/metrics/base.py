"""What every metric is: its spec, the inputs it may need from the installation, and the error
saying which one is missing."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .wordnet import DEBIAN_WORDNET


class MetricUnavailable(RuntimeError):
    """The metric cannot be computed on this machine; the message says what is missing."""


@dataclass(frozen=True)
class MetricResources:
    """Inputs from the installation: the NLTK data folder WordNet is assembled in (METEOR) and
    the Debian WordNet it is assembled from."""

    nltk_data: Path
    wordnet_source: Path = DEBIAN_WORDNET


def always_available(resources) -> None:
    return None


@dataclass(frozen=True)
class MetricSpec:
    name: str
    description: str  # one line: the definition, its reference, the implementation
    needs: tuple[str, ...]  # inputs beyond the output: "references", "wordnet", "model"
    # scores(outputs, references, resources) -> one float per output; references are already
    # leave-one-out
    scores: Callable[[Sequence[str], Sequence[Sequence[str]], MetricResources | None], np.ndarray]
    # unavailable(resources) -> None, or the reason the metric cannot be computed here
    # ("meteor is unavailable because ...")
    unavailable: Callable[[MetricResources | None], str | None] = always_available
