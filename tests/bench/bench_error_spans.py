"""Benchmark of the error-span path: 100k MQM error rows in WMT's marked TSV layout parsed
(annotation.error_span_formats), scored (evaluation.stats.mqm_scores) and their span agreement computed
with a bootstrap over segments (agreement.stats.span_agreement), against baselines in the same run:
pandas groupby for the scores, and a per-character Python loop for the agreement tables.

Run: ``.venv/bin/python tests/bench/bench_error_spans.py [--rows 100000] [--resamples 1000]``. Prints
Markdown. Time is one run (each stage takes seconds); peak memory is ``tracemalloc``'s peak during
the stage, in a separate run. Asserts only that both ways give the same numbers.
"""

import argparse
import io
import os
import sys
import time
import tracemalloc
from itertools import combinations
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agreement.stats import span_agreement, span_set  # noqa: E402
from annotation.error_span_formats import mark_span, read_error_rows  # noqa: E402
from evaluation.stats import WMT_MQM_WEIGHTS, mqm_scores  # noqa: E402

CATEGORIES = ("Accuracy/Mistranslation", "Fluency/Grammar", "Fluency/Punctuation", "Style/Awkward", "Terminology")


def synthetic_tsv(n_rows: int, seed: int = 0) -> str:
    """A WMT-layout study with about ``n_rows`` rows: 10 systems, 3 raters per (system, segment), about
    2.5 errors per rating, raters who partly agree on a segment's error positions."""
    rng = np.random.default_rng(seed)
    n_items = max(1, n_rows // 8)
    out = io.StringIO()
    out.write("system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n")
    raters = [f"rater{k}" for k in range(8)]
    for item in range(n_items):
        system, seg = f"sys{item % 10}", str(item // 10)
        length = int(rng.integers(40, 220))
        text = ("Ein Satz mit Fehlern " * (length // 21 + 1))[:length]
        truth = [tuple(sorted(rng.integers(0, length, 2))) for _ in range(3)]
        for rater in rng.choice(raters, 3, replace=False):
            n_err = rng.poisson(2.5)
            if n_err == 0:
                out.write(f"{system}\td\t1\t{seg}\t{rater}\tsrc\t{text}\tNo-error\tNo-error\n")
            for _ in range(n_err):
                a, b = truth[rng.integers(0, 3)] if rng.random() < 0.6 else sorted(rng.integers(0, length, 2))
                a, b = int(a), int(max(b, a + 1) if a < length else a)
                severity = "Major" if rng.random() < 0.25 else "Minor"
                out.write(
                    f"{system}\td\t1\t{seg}\t{rater}\tsrc\t{mark_span(text, a, min(b, length))}\t"
                    f"{CATEGORIES[rng.integers(0, len(CATEGORIES))]}\t{severity}\n"
                )
    return out.getvalue()


def to_span_set(rows):
    items = {}
    for r in rows:
        items.setdefault((r.system, r.segment), len(r.target))
    index = {k: i for i, k in enumerate(items)}
    raters = {k: i for i, k in enumerate(sorted({r.rater for r in rows}))}
    ratings = sorted({(index[r.system, r.segment], raters[r.rater]) for r in rows})
    spans = [r for r in rows if r.start is not None]
    return span_set(
        list(items.values()),
        ratings,
        segment=np.array([index[r.system, r.segment] for r in spans]),
        rater=np.array([raters[r.rater] for r in spans]),
        start=np.array([r.start for r in spans]),
        end=np.array([r.end for r in spans]),
        severity=[r.severity.lower() for r in spans],
    )


def pandas_scores(rows):
    """The baseline of the scores: WMT24 tools.py style, a weight per row by rule, then groupbys."""
    df = pd.DataFrame(
        {
            "system": [r.system for r in rows],
            "segment": [r.segment for r in rows],
            "rater": [r.rater for r in rows],
            "severity": [r.severity for r in rows],
            "category": [r.category for r in rows],
        }
    )
    df["w"] = df.apply(lambda x: WMT_MQM_WEIGHTS.weight(x["severity"], x["category"]), axis=1)
    per_rating = df.groupby(["system", "segment", "rater"])["w"].sum()
    per_segment = per_rating.groupby(["system", "segment"]).mean()
    return per_segment.groupby("system").mean()


def naive_char_agreement(rows):
    """The baseline of the agreement: per pair of raters on each segment, a Python loop over characters
    building the 'any error' table; pooled Cohen's kappa and character F1 from it."""
    by_rating, lengths = {}, {}
    for r in rows:
        key = (r.system, r.segment)
        lengths[key] = len(r.target)
        marks = by_rating.setdefault((key, r.rater), set())
        if r.start is not None and r.side == "target":
            marks.update(range(r.start, r.end))
    raters_of = {}
    for key, rater in by_rating:
        raters_of.setdefault(key, []).append(rater)
    table = [[0, 0], [0, 0]]
    for key, raters in raters_of.items():
        for a, b in combinations(sorted(raters), 2):
            ma, mb = by_rating[key, a], by_rating[key, b]
            for x in range(lengths[key]):
                table[x in ma][x in mb] += 1
    n = sum(map(sum, table))
    po = (table[0][0] + table[1][1]) / n
    pe = (
        (table[0][0] + table[0][1]) * (table[0][0] + table[1][0])
        + (table[1][0] + table[1][1]) * (table[0][1] + table[1][1])
    ) / n**2
    return (po - pe) / (1 - pe), 2 * table[1][1] / (2 * table[1][1] + table[0][1] + table[1][0])


def measure(fn):
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, seconds, peak / 2**20


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    text = synthetic_tsv(args.rows)
    rows, t_parse, m_parse = measure(lambda: read_error_rows(io.StringIO(text)))
    n_spans = sum(r.start is not None for r in rows)
    n_items = len({(r.system, r.segment) for r in rows})
    print(f"{len(rows):,} rows ({n_spans:,} spans), {n_items:,} (system, segment) items\n")
    scores, t_score, m_score = measure(
        lambda: mqm_scores(
            [r.system for r in rows], [r.segment for r in rows], [r.rater for r in rows],
            [r.severity for r in rows], [r.category for r in rows],
        )
    )  # fmt: skip
    base_scores, t_pandas, m_pandas = measure(lambda: pandas_scores(rows))
    assert np.allclose(scores.system_score, base_scores.loc[list(scores.systems)].to_numpy())
    spans, t_index, m_index = measure(lambda: to_span_set(rows))
    point, t_point, m_point = measure(lambda: span_agreement(spans, n_resamples=0))
    boot, t_boot, m_boot = measure(
        lambda: span_agreement(spans, rng=np.random.default_rng(0), n_resamples=args.resamples)
    )
    _, t_pct, m_pct = measure(
        lambda: span_agreement(spans, rng=np.random.default_rng(0), n_resamples=args.resamples, method="percentile")
    )
    (kappa, f1), t_naive, m_naive = measure(lambda: naive_char_agreement(rows))
    assert abs(kappa - point.get("kappa", "any").value) < 1e-9 and abs(f1 - point.get("char_f1", "any").value) < 1e-9
    print("| stage | time (s) | peak memory (MiB) |\n|---|---:|---:|")
    for name, t, m in (
        ("parse (read_error_rows, marked layout)", t_parse, m_parse),
        ("score (mqm_scores)", t_score, m_score),
        ("score, baseline: pandas apply + groupby", t_pandas, m_pandas),
        ("index spans (span_set, incl. Python lists)", t_index, m_index),
        ("span agreement, point values (all statistics, pairs)", t_point, m_point),
        (f"span agreement + BCa bootstrap ({args.resamples} resamples)", t_boot, m_boot),
        (f"span agreement + percentile bootstrap ({args.resamples} resamples)", t_pct, m_pct),
        ("baseline: per-character loop, one table (any), point only", t_naive, m_naive),
    ):
        print(f"| {name} | {t:.2f} | {m:.0f} |")
    print(
        f"\nThe per-character loop gives one scheme's pooled table once; a bootstrap that recomputed it would "
        f"take about {args.resamples} x {t_naive:.1f} s = {args.resamples * t_naive / 3600:.1f} h."
    )
    st = boot.get("unitizing_alpha", "any")
    print(f"unitizing alpha (any) {st.value:.4f} [{st.ci_low:.4f}, {st.ci_high:.4f}]; kappa (any) {kappa:.4f}")


if __name__ == "__main__":
    main()
