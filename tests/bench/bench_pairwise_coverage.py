"""Coverage of the bootstrap intervals of the pairwise and best–worst models by simulation: MaxDiff
strengths (``maxdiff``), style-controlled Bradley–Terry strengths and coefficients (``bradley_terry_style``)
and Bradley–Terry from aggregated tables (``bradley_terry_tables``, multinomial bootstrap).

Run: ``nice .venv/bin/python tests/bench/bench_pairwise_coverage.py [--studies 200] [--resamples 100]``.
Prints Markdown. Each study draws a fresh data set from a fixed model with known parameters and counts
whether each 95% percentile interval holds the true value; the standard error of a coverage c over S
studies and m parameters is at least sqrt(c (1 - c) / S) (parameters of one study are correlated).

Models: MaxDiff, 10 items with log-strengths evenly spaced over [-1, 1], the usual design (20 tuples of 4),
6 answers a tuple, bootstrap over tuples; style control, 5 systems (log-strengths 0.6 … -0.6), 1,500
comparisons, one length feature with coefficient 0.5 per SD and one without effect; tables, 5 systems,
2,000 comparisons with 20% ties, strengths by half-wins (the true values are the half-win model's limit,
computed on 4 million comparisons).
"""

import argparse
import os
import sys
from itertools import permutations
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from evaluation.stats import (  # noqa: E402
    InsufficientDataError,
    bradley_terry_style,
    bradley_terry_tables,
    bws_tuples,
    maxdiff,
    pair_tables,
)


def maxdiff_study(theta, rng):
    design = bws_tuples(len(theta), rng=rng)
    pairs = np.array(list(permutations(range(4), 2)))
    tuples = np.repeat(design, 6, axis=0)
    logits = theta[tuples[:, pairs[:, 0]]] - theta[tuples[:, pairs[:, 1]]]
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    pick = (rng.random(len(tuples))[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    rows = np.arange(len(tuples))
    return tuples, tuples[rows, pairs[pick, 0]], tuples[rows, pairs[pick, 1]], np.repeat(np.arange(len(design)), 6)


def style_study(theta, beta, rng, n=1500):
    k = len(theta)
    first = rng.integers(0, k, n)
    second = (first + rng.integers(1, k, n)) % k
    lengths = rng.poisson(100, (n, 2)) + 1.0
    noise = rng.poisson(2, (n, 2)).astype(float)
    d = (lengths[:, 0] - lengths[:, 1]) / lengths.sum(axis=1)
    z = (d - 0.0) / 0.05  # about unit SD: Poisson(100) lengths give d an SD near 0.05
    a = theta[first] - theta[second] + beta * z
    outcome = np.where(rng.random(n) < 1 / (1 + np.exp(-a)), 2.0, 0.0)
    return (
        first,
        second,
        outcome,
        np.column_stack([lengths[:, 0], noise[:, 0]]),
        np.column_stack([lengths[:, 1], noise[:, 1]]),
    )


def table_study(theta, rng, n):
    k = len(theta)
    first = rng.integers(0, k, n)
    second = (first + rng.integers(1, k, n)) % k
    outcome = np.where(rng.random(n) < 1 / (1 + np.exp(theta[second] - theta[first])), 2.0, 0.0)
    outcome[rng.random(n) < 0.2] = 1.0
    return first, second, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--studies", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=100)
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    rows = []

    theta = np.linspace(1, -1, 10)
    hits, skipped = [], 0
    for _ in range(args.studies):
        tuples, best, worst, units = maxdiff_study(theta, rng)
        try:
            r = maxdiff(tuples, best, worst, units=units, n_resamples=args.resamples, rng=rng)
        except InsufficientDataError:
            skipped += 1
            continue
        hits.append((np.array(r.ci_low) <= theta) & (theta <= np.array(r.ci_high)))
    rows.append(("MaxDiff strengths (10 items, 20 tuples × 6 answers)", np.mean(hits), len(hits), skipped))

    theta = np.linspace(0.6, -0.6, 5)
    beta = np.array([0.5, 0.0])
    hits, coef_hits = [], []
    for _ in range(args.studies):
        first, second, outcome, ff, fs = style_study(theta, beta[0], rng)
        r = bradley_terry_style(
            first, second, outcome, ff, fs, feature_names=("length", "noise"), n_resamples=args.resamples, rng=rng
        )
        hits.append((np.array(r.ci_low) <= theta) & (theta <= np.array(r.ci_high)))
        # the fit standardises the covariate by its sample SD: the true coefficient on that scale
        d = (ff[:, 0] - fs[:, 0]) / (ff[:, 0] + fs[:, 0])
        true_beta = beta[0] * d.std() / 0.05
        coef_hits.append(r.coefficient_ci_low[0] <= true_beta <= r.coefficient_ci_high[0])
    rows.append(("style control: strengths (5 systems, 1,500 comparisons)", np.mean(hits), len(hits), 0))
    rows.append(("style control: length coefficient", np.mean(coef_hits), len(coef_hits), 0))

    theta = np.linspace(0.8, -0.8, 5)
    limit = np.array(bradley_terry_tables(pair_tables(*table_study(theta, rng, 4_000_000)), n_resamples=0).strengths)
    hits = []
    for _ in range(args.studies):
        r = bradley_terry_tables(pair_tables(*table_study(theta, rng, 2000)), n_resamples=args.resamples, rng=rng)
        hits.append((np.array(r.ci_low) <= limit) & (limit <= np.array(r.ci_high)))
    rows.append(("tables, multinomial bootstrap (5 systems, 2,000 comparisons, 20% ties)", np.mean(hits), len(hits), 0))

    print(f"{args.studies} studies, {args.resamples} bootstrap resamples each, 95% percentile intervals\n")
    print("| interval | coverage | studies | skipped (no finite estimate) |\n|---|---:|---:|---:|")
    for name, coverage, n, skipped in rows:
        print(f"| {name} | {coverage:.3f} | {n} | {skipped} |")


if __name__ == "__main__":
    main()
