"""Perplexity of each output: under a causal language model at a local folder the installation
configures (``CONCORD_CAUSAL_LM``), or under a bigram model trained on the project's uploaded
training corpus, for installations without one.

Causal LM: ``exp`` of the mean negative log-likelihood of the output's tokens after the first
(Hugging Face's ``labels=input_ids`` loss), the text truncated to the model's context; read with
``local_files_only``, so nothing is downloaded.

Bigram: NLTK's ``nltk.lm.Laplace`` (add-one) bigram model over the corpus lines, padded with
``<s>`` and ``</s>``, words seen once or never mapped to ``<UNK>``; perplexity over the output's
padded bigrams.

References
----------
.. [1] Daniel Jurafsky and James H. Martin, *Speech and Language Processing* (3rd ed. draft),
       chapter 3, "N-gram Language Models" (perplexity, Laplace smoothing).
"""

import math
from functools import lru_cache
from pathlib import Path

import numpy as np

from .base import padded_batch

BATCH = 16


@lru_cache(maxsize=1)
def _causal_lm(folder: str):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_grad_enabled(False)
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True).eval()
    return tokenizer, model


def _context(tokenizer, model) -> int:
    for value in (getattr(model.config, "n_positions", None), getattr(model.config, "max_position_embeddings", None)):
        if value:
            return int(value)
    return int(min(tokenizer.model_max_length, 1024))


def causal_lm_perplexity(outputs, references, resources, **_) -> np.ndarray:
    import torch

    tokenizer, model = _causal_lm(str(resources.causal_lm))
    limit = _context(tokenizer, model)
    encoded = [tokenizer.encode(o, add_special_tokens=False)[:limit] for o in outputs]
    values = np.full(len(outputs), np.nan)
    order = sorted(range(len(outputs)), key=lambda k: len(encoded[k]))
    order = [k for k in order if len(encoded[k]) >= 2]
    for start in range(0, len(order), BATCH):
        rows = order[start : start + BATCH]
        ids, mask = padded_batch([encoded[k] for k in rows])
        with torch.inference_mode():
            logits = model(input_ids=ids, attention_mask=mask).logits.double()
        logp = torch.log_softmax(logits[:, :-1], dim=-1).gather(-1, ids[:, 1:, None])[..., 0]
        keep = mask[:, 1:].double()
        nll = -(logp * keep).sum(dim=1) / keep.sum(dim=1)
        values[rows] = torch.exp(nll).numpy()
    return values


def causal_lm_unavailable(resources) -> str | None:
    folder = getattr(resources, "causal_lm", None)
    if folder is None:
        return "perplexity is unavailable because no causal language model is configured (CONCORD_CAUSAL_LM)"
    if not (Path(folder) / "config.json").is_file():
        return f"perplexity is unavailable because {folder} holds no model (no config.json)"
    return None


@lru_cache(maxsize=2)
def _bigram_model(path: str, mtime: float):
    from nltk.lm import Laplace
    from nltk.lm.preprocessing import padded_everygram_pipeline

    from .text import tokens

    lines = [t for line in Path(path).read_text(encoding="utf-8").splitlines() if (t := tokens(line))]
    train, vocabulary = padded_everygram_pipeline(2, lines)
    model = Laplace(2)
    model.fit(train, vocabulary)
    return model


def bigram_perplexity(outputs, references, resources, **_) -> np.ndarray:
    from nltk.lm.preprocessing import pad_both_ends
    from nltk.util import bigrams

    from .text import tokens

    path = Path(resources.training_corpus)
    model = _bigram_model(str(path), path.stat().st_mtime)
    values = []
    for output in outputs:
        words = tokens(output)
        grams = list(bigrams(pad_both_ends(words, n=2))) if words else []
        values.append(model.perplexity(grams) if grams else math.nan)
    return np.array(values, dtype=float)


def perplexity_specs() -> list:
    from .base import MetricSpec
    from .dialog import missing_inputs

    return [
        MetricSpec(
            "perplexity",
            "perplexity, exp of the mean token negative log-likelihood under the causal language model "
            "configured at CONCORD_CAUSAL_LM (Jurafsky & Martin ch. 3); lower is more fluent",
            ("causal_lm",),
            causal_lm_perplexity,
            causal_lm_unavailable,
        ),
        MetricSpec(
            "perplexity_bigram",
            "perplexity under an add-one bigram model of the uploaded training corpus (NLTK nltk.lm.Laplace; "
            "Jurafsky & Martin ch. 3); lower is closer to the corpus",
            ("training_corpus",),
            bigram_perplexity,
            lambda resources: missing_inputs("perplexity_bigram", ("training_corpus",), resources),
        ),
    ]
