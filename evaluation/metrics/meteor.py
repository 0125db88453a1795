"""METEOR (Banerjee and Lavie, 2005) as NLTK's ``meteor_score`` computes it: exact, Porter-stem
and WordNet 3.0 synonym matches, the best reference kept.

NLTK's synonym stage looks up the words the stem stage left unmatched in their stemmed form, so a
synonym counts only where the stem is the word itself ("auto" for "car", not "automobile"); that
is NLTK's METEOR, and the one computed here.

References
----------
.. [1] Satanjeev Banerjee and Alon Lavie, "METEOR: An Automatic Metric for MT Evaluation with
       Improved Correlation with Human Judgments", ACL 2005 Workshop on Intrinsic and Extrinsic
       Evaluation Measures. https://aclanthology.org/W05-0909
"""

import math
from functools import lru_cache
from pathlib import Path

import numpy as np

from .base import MetricUnavailable
from .wordnet import INSTALL_HINT, WordNetMissing, wordnet_missing, wordnet_reader

DESCRIPTION = (
    "METEOR (Banerjee & Lavie 2005) as NLTK's meteor_score: exact, Porter-stem and WordNet 3.0 "
    "synonym matches (Debian wordnet-base), lower-cased word tokens, best reference"
)


class _CachedSynsets:
    """NLTK's WordNet reader with its ``synsets`` remembered per word: METEOR looks the same
    words up for every reference of every output."""

    def __init__(self, reader):
        self.synsets = lru_cache(maxsize=50_000)(reader.synsets)


@lru_cache(maxsize=4)
def _wordnet(nltk_data: Path, source: Path) -> _CachedSynsets:
    try:
        return _CachedSynsets(wordnet_reader(nltk_data, source))
    except WordNetMissing as exc:
        raise MetricUnavailable(f"meteor is unavailable because {INSTALL_HINT}") from exc


def unavailable(resources) -> str | None:
    """Why METEOR cannot be computed here, or None (WordNet assembled, or its packages installed)."""
    if resources is None:
        return "meteor is unavailable because no NLTK data folder was given for WordNet"
    if (Path(resources.nltk_data) / "corpora" / "wordnet" / "lexnames").is_file():
        return None
    return f"meteor is unavailable because {INSTALL_HINT}" if wordnet_missing(resources.wordnet_source) else None


def meteor_scores(outputs, references, resources) -> np.ndarray:
    """One METEOR per output against its tokenised references (NaN without a reference)."""
    from nltk.translate.meteor_score import meteor_score

    from .text import tokens

    if resources is None:
        raise MetricUnavailable(unavailable(resources))
    wordnet = _wordnet(resources.nltk_data, resources.wordnet_source)
    return np.array(
        [
            meteor_score([tokens(r) for r in refs], tokens(o), wordnet=wordnet) if refs else math.nan
            for o, refs in zip(outputs, references, strict=True)
        ],
        dtype=float,
    )
