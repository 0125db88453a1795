"""evaluation.metrics.rouge against ROUGE-1.5.5.pl itself (run by perl_rouge155) on generated and
real texts: every variant, with and without the stemmer, pooled and best reference, equal to the
script's 5 decimals."""

import dataclasses
import doctest
import random
import shutil

import pytest

import evaluation.metrics.rouge as rouge_module
from evaluation.metrics import compute_metrics, metric_spec
from evaluation.metrics.rouge import RougeVariant, morph_stem, parse_rouge_name, rouge
from tests.evaluation.metrics.perl_rouge155 import perl_rouge

pytestmark = pytest.mark.skipif(shutil.which("perl") is None, reason="ROUGE-1.5.5.pl needs perl")

MEASURES = {
    "ROUGE-1": RougeVariant("N", n=1),
    "ROUGE-2": RougeVariant("N", n=2),
    "ROUGE-3": RougeVariant("N", n=3),
    "ROUGE-4": RougeVariant("N", n=4),
    "ROUGE-L": RougeVariant("L"),
    "ROUGE-W-1.2": RougeVariant("W"),
    "ROUGE-S4": RougeVariant("S", gap=4),
    "ROUGE-SU4": RougeVariant("SU", gap=4),
}
# stems, WordNet exceptions (went, better, testes), hyphens, non-ASCII, digits and repeats
WORDS = (
    "the a cat cats dog dogs running runs ran went goes better best offer testes hopping relational "
    "agreement is of and-so on mat sat Police killed gunman policeman État 1990s $5 yelling"
).split()


def _text(rng: random.Random) -> str:
    lines = rng.randint(1, 3)
    return "\n".join(
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12))) + rng.choice(["", ".", ",!"])
        for _ in range(lines)
    )


def _mismatches(outputs, references, *, stem, best, measures=MEASURES, **perl_options):
    expected = perl_rouge(outputs, references, stem=stem, best=best, **perl_options)
    wrong = []
    for k, (output, refs) in enumerate(zip(outputs, references, strict=True)):
        for measure, variant in measures.items():
            variant = dataclasses.replace(variant, stem=stem, mode="B" if best else "A")
            got = rouge(output, refs, variant)
            if (got.recall, got.precision, got.f) != expected[k][measure]:
                wrong.append((k, measure, expected[k][measure], got))
    return wrong


def test_doctests():
    assert doctest.testmod(rouge_module).failed == 0


@pytest.mark.parametrize("stem", [False, True], ids=["plain", "stemmed"])
@pytest.mark.parametrize("best", [False, True], ids=["pooled", "best"])
def test_generated_texts_equal_the_perl_script(stem, best):
    rng = random.Random(20)
    outputs = [_text(rng) for _ in range(80)]
    references = [[_text(rng) for _ in range(rng.randint(1, 3))] for _ in outputs]
    assert _mismatches(outputs, references, stem=stem, best=best) == []


def test_other_n_and_gap_equal_the_perl_script():
    rng = random.Random(7)
    outputs = [_text(rng) for _ in range(30)]
    references = [[_text(rng) for _ in range(2)] for _ in outputs]
    measures = {"ROUGE-6": RougeVariant("N", n=6), "ROUGE-S1": RougeVariant("S", gap=1)}
    measures["ROUGE-SU1"] = RougeVariant("SU", gap=1)
    assert _mismatches(outputs, references, stem=True, best=False, measures=measures, n=6, gap=1) == []


def test_squality_summaries_equal_the_perl_script(datasets):
    import json

    # four-reference items: the first story's plot question, three systems' responses (the script
    # takes tens of seconds per long summary, so a few)
    refs = {}
    for line in (datasets / "squality_humaneval" / "references.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        refs.setdefault((r["passage_id"], int(r["question"])), []).append((r["ref_index"], r["reference"]))
    outputs, references = [], []
    for line in (datasets / "squality_humaneval" / "all-responses.jsonl").read_text(encoding="utf-8").splitlines()[:1]:
        story = json.loads(line)
        for _, response in sorted(story["questions"]["0"].items())[:3]:
            outputs.append(response["response"])
            references.append([text for _, text in sorted(refs[(story["passage-id"], 0)])])
    assert _mismatches(outputs, references, stem=True, best=False) == []


def test_stemmer_uses_the_wordnet_exceptions_then_porter():
    # went -> go (verb.exc), mice -> mouse (noun.exc), then the script's Porter
    assert [morph_stem(w) for w in ("went", "mice", "running", "cat", "agreement")] == [
        "go",
        "mouse",
        "run",
        "cat",
        "agreem",
    ]


def test_names_resolve_to_variants_and_registry_specs():
    assert parse_rouge_name("rouge155_W_r") == (RougeVariant("W"), "recall")
    assert parse_rouge_name("rouge155_7_p_stem_best") == (RougeVariant("N", n=7, stem=True, mode="B"), "precision")
    assert parse_rouge_name("rouge155_0_f") is None and parse_rouge_name("rougeL") is None
    spec = metric_spec("rouge155_SU4_f_stem")
    assert spec.needs == ("references",) and "ROUGE-1.5.5.pl" in spec.description
    assert "rouge-score differs" in spec.description
    with pytest.raises(ValueError, match="unknown metric 'rouge155_X_f'"):
        metric_spec("rouge155_X_f")


def test_compute_metrics_gives_each_statistic_and_nan_without_references():
    scores = compute_metrics(
        ["Police killed the gunman", "no reference here"],
        [["The gunman killed the policeman"], []],
        ["rouge155_1_r", "rouge155_1_p", "rouge155_1_f", "rouge155_9_f"],
    )
    assert list(scores["rouge155_1_r"]) == [0.6, pytest.approx(float("nan"), nan_ok=True)]
    assert scores["rouge155_1_p"][0] == 0.75 and scores["rouge155_1_f"][0] == 0.66667
    assert scores["rouge155_9_f"][0] == 0.0


def test_both_weighted_lcs_fillings_mark_the_same_path():
    # long sentences take the numpy anti-diagonal filling, short ones the loop: same tie-breaks
    rng = random.Random(5)
    vocabulary = [f"w{k}" for k in range(20)]
    for size in (30, 60, 420):
        model = tuple(rng.choice(vocabulary) for _ in range(size))
        peer = tuple(rng.choice(vocabulary) for _ in range(size + 7))
        weights = rouge_module._weights(size + 9)
        by_loop, by_diagonals = [0] * size, [0] * size
        rouge_module._mark_path(model, peer, by_loop, rouge_module._wlcs_by_loop(model, peer, weights))
        rouge_module._mark_path(model, peer, by_diagonals, rouge_module._wlcs_by_diagonals(model, peer, weights))
        assert by_loop == by_diagonals and sum(by_loop) > 0
