"""Benchmark: 10 million pairwise judgments, a Bradley–Terry fit and 100 bootstrap replicates
(``evaluation.stats.pair_tables`` + ``bradley_terry_tables``), against the public arena code's way in
the same run: a logistic regression (scikit-learn, no penalty) on the comparisons' design matrix for
the estimate and again for every bootstrap replicate of resampled rows.

Run: ``nice .venv/bin/python tests/bench/bench_pairwise_scale.py [--judgments 10000000] [--systems 50]
[--resamples 100] [--baseline-rows 200000] [--baseline-fits 3]``. Prints Markdown.

The baseline's design matrix for 10M rows × 50 systems alone is 4 GB in float64, so it runs on a
subsample of ``--baseline-rows`` rows for ``--baseline-fits`` fits, and its time is extrapolated
linearly in rows and fits (its cost per fit grows at least linearly with the rows: every L-BFGS
iteration touches every row). Peak memory is the process's maximum resident set size.
"""

import argparse
import os
import resource
import sys
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from evaluation.stats import bradley_terry_tables, pair_tables  # noqa: E402


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def comparisons(n: int, k: int, seed: int = 0):
    """Arena-like votes: log-strengths spread over 3 (about 520 Elo points), pairs drawn at random,
    Davidson ties (nu = 0.6)."""
    rng = np.random.default_rng(seed)
    theta = np.sort(rng.normal(0, 0.8, k))[::-1]
    first = rng.integers(0, k, n, dtype=np.int32)
    second = (first + rng.integers(1, k, n, dtype=np.int32)) % k
    a, b = np.exp(theta[first]), np.exp(theta[second])
    c = 0.6 * np.sqrt(a * b)
    u = rng.random(n) * (a + b + c)
    outcome = np.where(u < a, 2.0, np.where(u < a + b, 0.0, 1.0))
    return first, second, outcome


def arena_logistic_fit(first, second, outcome, k):
    """The arena notebook's fit: X has +1 for the first system and -1 for the second, y = first wins,
    a tie entered as one win and one loss of weight 1/2; no intercept, no penalty."""
    n = len(first)
    tie = outcome == 1.0
    rows = np.concatenate([np.arange(n), np.flatnonzero(tie)])
    x = np.zeros((len(rows), k))
    x[np.arange(len(rows)), first[rows]] = 1.0
    x[np.arange(len(rows)), second[rows]] = -1.0
    y = np.concatenate([outcome == 2.0, np.zeros(tie.sum(), dtype=bool)])
    y[np.flatnonzero(tie)] = True
    weight = np.concatenate([np.where(tie, 0.5, 1.0), np.full(tie.sum(), 0.5)])
    model = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-8, max_iter=1000)
    model.fit(x, y, sample_weight=weight)
    coef = model.coef_[0]
    return coef - coef.mean()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--judgments", type=int, default=10_000_000)
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--resamples", type=int, default=100)
    parser.add_argument("--baseline-rows", type=int, default=200_000)
    parser.add_argument("--baseline-fits", type=int, default=3)
    args = parser.parse_args()

    first, second, outcome = comparisons(args.judgments, args.systems)
    print(
        f"{args.judgments:,} comparisons between {args.systems} systems, {int((outcome == 1).sum()):,} ties; "
        f"RSS after generating them {peak_rss_mib():.0f} MiB\n"
    )
    rows = []
    start = time.perf_counter()
    tables = pair_tables(first, second, outcome)
    aggregated = time.perf_counter()
    half = bradley_terry_tables(tables, n_resamples=args.resamples, rng=np.random.default_rng(1))
    fitted = time.perf_counter()
    rows.append(("aggregate to pair tables (`pair_tables`)", aggregated - start))
    rows.append(
        (f"Bradley–Terry, ties as half-wins, + {args.resamples} multinomial bootstrap replicates", fitted - aggregated)
    )
    davidson = bradley_terry_tables(tables, ties="davidson", n_resamples=args.resamples, rng=np.random.default_rng(1))
    rows.append((f"Davidson ties, + {args.resamples} replicates (from the same tables)", time.perf_counter() - fitted))
    total = fitted - start
    ours_peak = peak_rss_mib()

    rng = np.random.default_rng(2)
    sub = rng.choice(args.judgments, args.baseline_rows, replace=False)
    f, s, o = first[sub], second[sub], outcome[sub]
    t0 = time.perf_counter()
    estimate = arena_logistic_fit(f, s, o, args.systems)
    for _ in range(args.baseline_fits - 1):
        boot = rng.integers(0, len(f), len(f))
        arena_logistic_fit(f[boot], s[boot], o[boot], args.systems)
    per_fit = (time.perf_counter() - t0) / args.baseline_fits
    ours_on_sub = bradley_terry_tables(pair_tables(f, s, o), n_resamples=0)
    difference = np.abs(np.array(ours_on_sub.strengths) - estimate).max()
    extrapolated = per_fit * (args.judgments / args.baseline_rows) * (args.resamples + 1)

    print("| stage | time (s) |\n|---|---:|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.2f} |")
    print(f"| **ours: aggregate + fit + {args.resamples} replicates** | **{total:.2f}** |")
    print(
        f"| baseline: one arena logistic fit on {args.baseline_rows:,} rows "
        f"(mean of {args.baseline_fits}) | {per_fit:.2f} |"
    )
    print(f"| baseline extrapolated: {args.resamples + 1} fits on {args.judgments:,} rows | {extrapolated:,.0f} |")
    print()
    print(f"- peak RSS of ours (data included): {ours_peak:.0f} MiB; of the whole run: {peak_rss_mib():.0f} MiB")
    print(f"- speed-up against the extrapolated baseline: {extrapolated / total:,.0f}x")
    print(f"- largest |ours - baseline| on the subsample's estimate: {difference:.1e}")
    print(
        f"- half-win interval width (mean): {np.mean(np.subtract(half.ci_high, half.ci_low)):.4f}; "
        f"Davidson nu = {davidson.tie_parameter:.3f}; resamples without MLE: {half.n_resamples_without_mle}"
    )


if __name__ == "__main__":
    main()
