"""Benchmark: adaptive against uniform allocation of pairwise judgments, 20 systems of known strength
(``evaluation.stats.allocation_probabilities`` with Bradley–Terry weighted by q/π, its square root, or not at all).

Run: ``nice -n 10 .venv/bin/python tests/bench/bench_adaptive_pairs.py [--reps 100] [--judgments 12000]
[--seed 2026] [--designs uniform,ranking,top3] [--allocation none] [--floor F] [--width-estimators none]
[--bias-only]``.
Prints Markdown.

Every study draws judgments in batches of 50, the allocation recomputed from the judgments before
each batch; the side shown first is random; no ties. Log-strengths are evenly spaced from 1.5 to
-1.5 (about 520 Elo points from top to bottom). Width is that of the 95% Wald intervals of the
target's contrasts (neighbours in the estimated ranking: all 19, or the first 3 for the top 3),
averaged over repetitions at checkpoints every 250 judgments from 1,000. "Judgments needed" is the first
checkpoint where the mean width is at most uniform allocation's mean width at ``--reference``
judgments, per estimator (``weighting``: inverse-probability, stabilised or none; the checkpoint widths
are those of the plain root, to keep the run short). The adaptive designs minimise the variance of the
``--allocation`` estimator. Bias and coverage: over the repetitions, each system's mean error of the final
bias-reduced estimate and its standard error (sd / sqrt(reps)), and the share of 95% intervals that hold the
true strength, for every estimator on the same judgments.
"""

import argparse
import os
import sys
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from evaluation.stats import (  # noqa: E402
    ALLOCATION_WEIGHTINGS,
    DEFAULT_FLOORS,
    WEIGHTINGS,
    allocation_probabilities,
    ipw_bradley_terry,
    ipw_win_rates,
    system_pairs,
)

BATCH = 50
STEP = 250
# before this a system may not have lost yet (no finite estimate)
FIRST_CHECKPOINT = 1000


def study(theta, n, rng, *, target, top_k, allocation, floor, width_estimators):
    k = len(theta)
    pairs = system_pairs(k)
    first, second = np.zeros(n, int), np.zeros(n, int)
    outcome, probability = np.zeros(n), np.zeros(n)
    probs = np.full(len(pairs), 1 / len(pairs))
    widths = []
    for start in range(0, n, BATCH):
        if target:
            probs = allocation_probabilities(
                k,
                first[:start],
                second[:start],
                outcome[:start],
                probability[:start],
                target=target,
                top_k=top_k,
                weighting=allocation,
                floor=floor,
            )
        drawn = rng.choice(len(pairs), BATCH, p=probs)
        swap = rng.random(BATCH) < 0.5
        f = np.where(swap, pairs[drawn, 1], pairs[drawn, 0])
        s = np.where(swap, pairs[drawn, 0], pairs[drawn, 1])
        win = rng.random(BATCH) < 1 / (1 + np.exp(theta[s] - theta[f]))
        end = start + BATCH
        first[start:end], second[start:end] = f, s
        outcome[start:end], probability[start:end] = np.where(win, 2.0, 0.0), probs[drawn]
        if width_estimators and end % STEP == 0 and end >= FIRST_CHECKPOINT:
            widths.append(
                [
                    ipw_bradley_terry(
                        k, first[:end], second[:end], outcome[:end], probability[:end], weighting=w, bias_reduced=False
                    ).contrast_se
                    for w in width_estimators
                ]
            )
    fits = [ipw_bradley_terry(k, first, second, outcome, probability, weighting=w) for w in WEIGHTINGS]
    # widths: (checkpoints, estimators, contrasts)
    return np.array(widths), fits, ipw_win_rates(k, first, second, outcome, probability)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--judgments", type=int, default=12_000)
    parser.add_argument("--reference", type=int, default=8_000)
    parser.add_argument("--seed", type=int, default=2026, help="every design's studies start from this seed")
    parser.add_argument(
        "--designs", default="uniform,ranking,top3", help="which of uniform, ranking, top3 to run (comma-separated)"
    )
    parser.add_argument("--allocation", default="none", choices=ALLOCATION_WEIGHTINGS)
    parser.add_argument(
        "--floor",
        type=float,
        default=None,
        help="share of the uniform design in every allocation (default: by weighting)",
    )
    parser.add_argument("--bias-only", action="store_true", help="skip the checkpoint widths (bias and coverage only)")
    parser.add_argument(
        "--width-estimators",
        default=",".join(WEIGHTINGS),
        help="the estimators whose checkpoint widths are computed (comma-separated; each costs a fit per checkpoint)",
    )
    args = parser.parse_args()
    k = 20
    theta = np.linspace(1.5, -1.5, k)
    true_win = np.array(
        [np.mean([1 / (1 + np.exp(theta[o] - theta[s])) for o in range(k) if o != s]) for s in range(k)]
    )
    checkpoints = np.arange(FIRST_CHECKPOINT, args.judgments + 1, STEP)
    known = {
        "uniform": ("uniform", None, None),
        "ranking": ("adaptive, whole ranking", "ranking", None),
        "top3": ("adaptive, top 3", "top_k", 3),
    }
    designs = {known[d][0]: known[d][1:] for d in args.designs.split(",")}
    results = {}
    started = time.perf_counter()
    for name, (target, top_k) in designs.items():
        rng = np.random.default_rng(args.seed)
        widths, errors, covered, win_errors = [], [], [], []
        for _ in range(args.reps):
            w, fits, rates = study(
                theta,
                args.judgments,
                rng,
                target=target,
                top_k=top_k,
                allocation=args.allocation,
                floor=args.floor,
                width_estimators=[] if args.bias_only else args.width_estimators.split(","),
            )
            widths.append(w)
            errors.append([np.array(f.strengths) - theta for f in fits])
            covered.append([(np.array(f.ci_low) <= theta) & (theta <= np.array(f.ci_high)) for f in fits])
            win_errors.append(rates.system_win_rate - true_win)
        results[name] = (np.array(widths), np.array(errors), np.array(covered), np.array(win_errors))
    print(
        f"{args.reps} repetitions of {args.judgments:,} judgments per design, {k} systems, seed {args.seed}, "
        f"allocation minimising the variance of weighting={args.allocation}, floor "
        f"{args.floor or DEFAULT_FLOORS[args.allocation]}; "
        f"run took {time.perf_counter() - started:.0f} s\n"
    )
    print(
        "| target | contrasts | estimator | uniform width at reference | adaptive: judgments needed "
        "| uniform: judgments needed | fewer |"
    )
    print("|---|---|---|---:|---:|---:|---:|")
    for name, (target, top_k) in designs.items():
        if target is None or "uniform" not in results or args.bias_only:
            continue
        contrasts = slice(0, top_k) if top_k else slice(None)
        for e, estimator in enumerate(args.width_estimators.split(",")):
            mean_width = {d: 2 * 1.96 * results[d][0][:, :, e, contrasts].mean(axis=(0, 2)) for d in ("uniform", name)}
            goal = mean_width["uniform"][np.searchsorted(checkpoints, args.reference)]
            needed = {
                d: checkpoints[np.argmax(mean_width[d] <= goal)] if (mean_width[d] <= goal).any() else None
                for d in mean_width
            }
            fewer = f"{1 - needed[name] / needed['uniform']:.0%}" if needed[name] else "not reached"
            label = "first 3 neighbours" if top_k else "all 19 neighbours"
            print(f"| {name} | {label} | {estimator} | {goal:.4f} | {needed[name]} | {needed['uniform']} | {fewer} |")
    print()
    print(
        "| design | estimator (bias-reduced) | strengths: max abs mean error / SE | within 1 SE | within 2 SE "
        "| chi-square p (19 df, approx.) | mean abs error of strengths | 95% interval coverage |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, (_, errors, covered, win_errors) in results.items():
        for e, estimator in enumerate(WEIGHTINGS):
            z = zscores(errors[:, e])
            # strengths sum to zero: 19 free ones
            p = stats.chi2.sf((z**2).sum() * (k - 1) / k, k - 1)
            print(
                f"| {name} | {estimator} | {np.abs(z).max():.2f} | {(np.abs(z) <= 1).sum()}/{k} "
                f"| {(np.abs(z) <= 2).sum()}/{k} | {p:.2f} | {np.abs(errors[:, e]).mean():.4f} "
                f"| {covered[:, e].mean():.3f} |"
            )
        print(f"| {name} | Horvitz–Thompson win rates | {np.abs(zscores(win_errors)).max():.2f} | | | | | |")


def zscores(errors):
    return errors.mean(axis=0) / (errors.std(axis=0, ddof=1) / np.sqrt(len(errors)))


if __name__ == "__main__":
    main()
