"""Benchmark: adaptive against balanced allocation of best–worst tuples, 20 outputs of known strength
(``evaluation.stats.tuple_allocation_probabilities`` with MaxDiff weighted by q/π, or unweighted).

Run: ``nice -n 19 .venv/bin/python tests/bench/bench_adaptive_tuples.py [--reps 20] [--judgments 2400]
[--reference 1600] [--candidates 200] [--seed 2026]``. Prints Markdown.

The candidates are a balanced design (``bws_tuples``) of ``--candidates`` tuples of 4 over the 20 outputs, whose
log-strengths are evenly spaced from 1.5 to −1.5; answers follow the MaxDiff model. Balanced allocation draws the
candidates uniformly (a judgment's probability 1/m); adaptive allocation draws them uniformly for one round (m
judgments, the cold start), then in batches of 50 with the probabilities recomputed before each batch, for the
whole ranking or the top 3, minimising the variance of the inverse-probability-weighted or of the unweighted fit
(``floor`` at its defaults, 0.3 and 0.1). Width: the 95% Wald (sandwich) intervals of the target's contrasts
(neighbours in the estimated ranking: all 19, or the first 3), averaged over repetitions at checkpoints every 200
judgments; "judgments needed" is the first checkpoint where the mean width is at most balanced allocation's at
``--reference`` judgments. Bias: each output's mean error of the final weighted estimate over the repetitions,
against its standard error (sd / sqrt(reps)).
"""

import argparse
import os
import sys
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from scipy import special  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from evaluation.stats import bws_tuples, ipw_maxdiff, tuple_allocation_probabilities  # noqa: E402
from evaluation.stats.adaptive_tuples import _choices  # noqa: E402

BATCH = 50
STEP = 200
N_OUTPUTS = 20
TOP = 3
DESIGNS = {
    "balanced": (None, None),
    "adaptive, whole ranking, weighted": ("ranking", "inverse_probability"),
    "adaptive, whole ranking, unweighted": ("ranking", "none"),
    "adaptive, top 3, weighted": ("top_k", "inverse_probability"),
    "adaptive, top 3, unweighted": ("top_k", "none"),
}


def study(theta, candidates, n, rng, *, target, weighting):
    """One study allocated for ``target`` (None: balanced); returns the final fit and, per checkpoint, the mean
    widths of the whole ranking's and the top 3's contrasts."""
    choices = _choices(candidates.shape[1])
    m = len(candidates)
    tuples, best, worst = np.zeros((n, candidates.shape[1]), int), np.zeros(n, int), np.zeros(n, int)
    probability = np.zeros(n)
    probs = np.full(m, 1 / m)
    widths = []
    fit_weighting = weighting or "none"
    for start in range(0, n, BATCH):
        if target and start >= m:
            probs = tuple_allocation_probabilities(
                len(theta),
                candidates,
                tuples[:start],
                best[:start],
                worst[:start],
                probability[:start],
                target=target,
                top_k=TOP if target == "top_k" else None,
                weighting=weighting,
            )
        drawn = rng.choice(m, BATCH, p=probs)
        for t, a in zip(range(start, start + BATCH), drawn, strict=True):
            answer = choices[rng.choice(len(choices), p=special.softmax(choices @ theta[candidates[a]]))]
            tuples[t], probability[t] = candidates[a], probs[a]
            best[t], worst[t] = candidates[a][answer == 1][0], candidates[a][answer == -1][0]
        end = start + BATCH
        if end % STEP == 0 and end >= 2 * STEP:
            fit = ipw_maxdiff(tuples[:end], best[:end], worst[:end], probability[:end], weighting=fit_weighting)
            width = 2 * 1.959964 * np.array(fit.contrast_se)
            widths.append((end, {"ranking": width.mean(), "top_k": width[:TOP].mean()}))
    return ipw_maxdiff(tuples, best, worst, probability, weighting=fit_weighting), widths


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--judgments", type=int, default=2400)
    parser.add_argument("--reference", type=int, default=1600)
    parser.add_argument("--candidates", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    theta = np.linspace(1.5, -1.5, N_OUTPUTS)
    candidates = bws_tuples(N_OUTPUTS, k=4, n_tuples=args.candidates, rng=np.random.default_rng(args.seed))
    started = time.time()
    widths, errors = {}, {}
    for name, (target, weighting) in DESIGNS.items():
        runs = [
            study(theta, candidates, args.judgments, rng, target=target, weighting=weighting) for _ in range(args.reps)
        ]
        for contrasts in ("ranking", "top_k"):
            if target in (None, contrasts):
                curve = {n: np.mean([dict(w)[n][contrasts] for _, w in runs]) for n, _ in runs[0][1]}
                widths[(name, contrasts)] = curve
        errors[name] = np.array([np.array(f.strengths) - theta for f, _ in runs])
    print(
        f"{args.reps} repetitions, {args.judgments} judgments, {args.candidates} candidate tuples of 4, "
        f"seed {args.seed}, {time.time() - started:.0f} s, load average {os.getloadavg()[0]:.1f}\n"
    )
    print("| target | design | width at reference | judgments needed | balanced needs | fewer |")
    print("|---|---|---:|---:|---:|---:|")
    for contrasts, label in (("ranking", "whole ranking"), ("top_k", "top 3")):
        reference = widths[("balanced", contrasts)][args.reference]
        for (name, c), curve in widths.items():
            if c != contrasts or name == "balanced":
                continue
            needed = next((n for n, w in sorted(curve.items()) if w <= reference), None)
            fewer = f"{1 - needed / args.reference:.0%}" if needed else "—"
            print(
                f"| {label} | {name} | {reference:.4f} | {needed or f'> {args.judgments}'} | {args.reference} "
                f"| {fewer} |"
            )
    print("\n| design | max abs mean error / SE | within 2 SE |")
    print("|---|---:|---:|")
    for name, e in errors.items():
        z = e.mean(axis=0) / (e.std(axis=0, ddof=1) / np.sqrt(len(e)))
        print(f"| {name} | {np.abs(z).max():.2f} | {(np.abs(z) <= 2).sum()}/{len(z)} |")


if __name__ == "__main__":
    main()
