"""Benchmark of the ROUGE-1.5.5 family and METEOR over 10,000 outputs with references, against
rouge-score (the baseline) in the same run.

Run: ``.venv/bin/python tests/bench/bench_text_metrics.py [--outputs 10000]`` (prints a Markdown
table). Not collected by pytest and it asserts nothing about wall time.

The outputs are built from SQuALITY (``$CONCORD_DATASETS``): each is three consecutive sentences of
a system response, scored against the first three sentences of each of its item's four references,
so every output is a distinct text (the tokenisation caches do not make repeats free). Time is one
cold pass over all outputs per metric (caches cleared before each); peak memory is measured with
``tracemalloc`` over the first 1,000 outputs in a separate pass.
"""

import argparse
import json
import os
import re
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from evaluation.metrics import (  # noqa: E402
    MetricResources,
    compute_metrics,
    text,  # noqa: E402
)
from evaluation.metrics import rouge as rouge155  # noqa: E402

DATASETS = Path(os.environ.get("CONCORD_DATASETS") or Path(__file__).resolve().parents[3] / "shared" / "datasets")
METRICS = [
    "rouge1",
    "rouge2",
    "rougeL",
    "rouge155_1_f_stem",
    "rouge155_2_f_stem",
    "rouge155_4_f_stem",
    "rouge155_L_f_stem",
    "rouge155_W_f_stem",
    "rouge155_S4_f_stem",
    "rouge155_SU4_f_stem",
    "rouge155_1_f",
    "meteor",
]
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def corpus(n_outputs: int):
    folder = DATASETS / "squality_humaneval"
    refs = {}
    for line in (folder / "references.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        refs.setdefault((r["passage_id"], int(r["question"])), []).append((r["ref_index"], r["reference"]))
    pieces = []
    for line in (folder / "all-responses.jsonl").read_text(encoding="utf-8").splitlines():
        story = json.loads(line)
        for q, systems in story["questions"].items():
            item_refs = [" ".join(_SENTENCE.split(t)[:3]) for _, t in sorted(refs[(story["passage-id"], int(q))])]
            for response in systems.values():
                sentences = _SENTENCE.split(response["response"])
                pieces += [(" ".join(sentences[k : k + 3]), item_refs) for k in range(len(sentences) - 2)]
    seen, outputs, references = set(), [], []
    for output, item_refs in pieces * (n_outputs // max(len(pieces), 1) + 1):
        # a repeated window gets a distinct number appended, so no output is scored twice
        key = output if output not in seen else f"{output} {len(outputs)}"
        seen.add(key)
        outputs.append(key)
        references.append(item_refs)
        if len(outputs) == n_outputs:
            break
    return outputs, references


def clear_caches():
    text._rouge_tokens.cache_clear()
    rouge155._text.cache_clear()
    rouge155._cached.cache_clear()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--outputs", type=int, default=10_000)
    parser.add_argument("--metrics", nargs="+", default=METRICS)
    parser.add_argument("--nltk-data", type=Path, default=Path(__file__).resolve().parents[2] / "var" / "nltk_data")
    args = parser.parse_args()
    outputs, references = corpus(args.outputs)
    resources = MetricResources(nltk_data=args.nltk_data)
    compute_metrics(outputs[:2], references[:2], ["meteor"], resources)  # loads WordNet once
    words = sum(len(o.split()) for o in outputs) / len(outputs)
    print(f"{len(outputs):,} outputs ({words:.0f} words on average), 4 references each\n")
    print("| metric | implementation | time (s) | outputs/s | peak memory, 1,000 outputs (MB) |")
    print("|---|---|---:|---:|---:|")
    for name in args.metrics:
        clear_caches()
        start = time.perf_counter()
        compute_metrics(outputs, references, [name], resources)
        elapsed = time.perf_counter() - start
        clear_caches()
        tracemalloc.start()
        compute_metrics(outputs[:1000], references[:1000], [name], resources)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        kind = "rouge-score (baseline)" if name.startswith("rouge") and "155" not in name else "Concord"
        if name == "meteor":
            kind = "NLTK meteor_score + WordNet 3.0"
        print(f"| `{name}` | {kind} | {elapsed:.1f} | {len(outputs) / elapsed:,.0f} | {peak:.1f} |", flush=True)


if __name__ == "__main__":
    main()
