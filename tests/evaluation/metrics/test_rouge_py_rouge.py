"""evaluation.metrics.rouge against py-rouge (Antognini's reimplementation of ROUGE-1.5.5) for the
variant rouge-score lacks, ROUGE-W-1.2, with ROUGE-N and ROUGE-L beside it; ROUGE-S and ROUGE-SU
are in neither and are checked against the Perl script alone (test_rouge155.py).

Where py-rouge differs, by design of ours (we follow the script): its F comes from the unrounded
P and R, the script's from the rounded ones (a 1e-5 difference at most); its stemmer is NLTK's
Porter, not the script's, so the comparison is unstemmed; and one py-rouge evaluator applies its
ROUGE-W weight to ROUGE-L too, so each runs in its own."""

import importlib.resources
import random
import sys
import types

import pytest

from evaluation.metrics.rouge import RougeVariant, rouge, sentence_tokens


@pytest.fixture(scope="module")
def py_rouge():
    # py-rouge 1.1 imports pkg_resources for its data files, which setuptools >= 81 no longer ships:
    # it gets a stand-in for that import alone (its module keeps the reference; nothing else sees it)
    try:
        import pkg_resources  # noqa: F401
        import rouge as py_rouge_module
    except ImportError:
        shim = types.ModuleType("pkg_resources")
        shim.resource_filename = lambda package, name: str(importlib.resources.files(package.split(".")[0]) / name)
        sys.modules["pkg_resources"] = shim
        try:
            import rouge as py_rouge_module
        finally:
            del sys.modules["pkg_resources"]
    return py_rouge_module.Rouge


def _evaluator(Rouge, monkeypatch, **options):
    # py-rouge first replaces every character outside [A-Za-z0-9] with a space, then calls NLTK's
    # word_tokenize, which needs the punkt model (not installed); on such text it is a split on spaces
    monkeypatch.setattr(Rouge, "tokenize_text", staticmethod(lambda text, language="english": text.split()))
    return Rouge(limit_length=False, apply_avg=False, stemming=False, alpha=0.5, **options)


WORDS = "the a cat cats dog mat sat on of and is police killed gunman yelling ran went offer best 1990s".split()


def _pairs(seed, n=150):
    rng = random.Random(seed)

    def text():
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 16))) + rng.choice(["", ".", " ,!"])

    return [(text(), text()) for _ in range(n)]


@pytest.mark.parametrize(
    ("metric", "options", "variant", "seed"),
    [
        ("rouge-1", {"metrics": ["rouge-n"], "max_n": 1}, RougeVariant("N", n=1), 1),
        ("rouge-2", {"metrics": ["rouge-n"], "max_n": 2}, RougeVariant("N", n=2), 2),
        ("rouge-4", {"metrics": ["rouge-n"], "max_n": 4}, RougeVariant("N", n=4), 4),
        ("rouge-l", {"metrics": ["rouge-l"]}, RougeVariant("L"), 5),
        ("rouge-w", {"metrics": ["rouge-w"], "weight_factor": 1.2}, RougeVariant("W"), 6),
    ],
)
def test_equals_py_rouge(py_rouge, monkeypatch, metric, options, variant, seed):
    evaluator = _evaluator(py_rouge, monkeypatch, **options)
    for output, reference in _pairs(seed):
        if not sentence_tokens(output) or not sentence_tokens(reference):
            continue
        theirs = evaluator.get_scores([output], [[reference]])[metric][0]
        ours = rouge(output, [reference], variant)
        assert (ours.recall, ours.precision) == (round(theirs["r"][0], 5), round(theirs["p"][0], 5)), (
            output,
            reference,
        )
        assert ours.f == pytest.approx(theirs["f"][0], abs=2e-5)
