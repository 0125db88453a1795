"""Coverage of the confidence intervals by simulation: how often each interval method contains the
true value, for Krippendorff's alpha (nominal, ordinal, interval), Cohen's kappa, Gwet's AC1 and
system means at 20, 40, 100 and 400 units.

Run: ``.venv/bin/python tests/bench/bench_interval_coverage.py [--studies 400] [--resamples 500]
[--only "alpha ordinal"]``
(prints Markdown tables). Not collected by pytest. Each study draws a fresh data set from a fixed
model, computes every interval at the 95% level, and counts whether it contains the model's true
value; the standard error of a coverage c over S studies is sqrt(c (1 - c) / S). The percentile
bootstrap, today's method, is the baseline of the same run. True values are the statistic on one
very large sample from the same model (its own sampling error is below 0.001).

Models (fixed seeds, so a run repeats):
- categorical ratings (alpha nominal and ordinal, AC1: 3 raters, 10% missing; kappa: 2 raters): each unit has a
  true category on a 5-point scale with skewed prevalence (.40 .25 .15 .12 .08); a rating is the
  true category with probability .6, else uniform;
- interval ratings (alpha interval: 3 raters, 10% missing): unit value N(0, 1), each rating adds
  skewed noise (a centred exponential, scale .6), so the statistic's distribution is skewed;
- system means: 3 systems, each unit (item) rated 3 times per system on 1..5, the rounded and
  clipped sum of a system effect (-.5, 0, .4), an item effect N(0, .7) and rating noise N(0, 1).

The alpha intervals are computed as the dashboard computes them (``bootstrap_alpha`` with
``max_blocks=200``, i.e. unit resampling below 200 units), the system means' by ``system_scores``.
Kappa's and AC1's bootstrap replicates are computed here for all replicates at once from
contingency tables and per-unit counts (``bootstrap_ci`` calls the statistic once per replicate,
seconds per study); the run first checks that they give ``bootstrap_ci``'s intervals on the same
draws, and both go through the library's ``bca_interval``.
"""

import argparse
import os
import sys
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agreement.stats import InsufficientDataError, cohen_kappa, gwet_ac1, krippendorff_alpha, unit_category_counts  # noqa: E402
from agreement.stats.bootstrap import bca_interval, bootstrap_alpha, bootstrap_ci  # noqa: E402
from evaluation.stats import system_scores  # noqa: E402

SIZES = (20, 40, 100, 400)
LEVEL = 0.95
PREVALENCE = np.array([0.40, 0.25, 0.15, 0.12, 0.08])
CATEGORIES = np.arange(1.0, 6.0)
SYSTEM_EFFECTS = np.array([-0.5, 0.0, 0.4])


def categorical(rng, n_units, n_raters, missing):
    truth = rng.choice(CATEGORIES, size=n_units, p=PREVALENCE)
    noise = rng.choice(CATEGORIES, size=(n_raters, n_units))
    data = np.where(rng.random((n_raters, n_units)) < 0.6, truth, noise)
    data[rng.random(data.shape) < missing] = np.nan
    return data


def interval(rng, n_units, n_raters=3, missing=0.1):
    truth = rng.normal(size=n_units)
    data = truth + rng.exponential(0.6, size=(n_raters, n_units)) - 0.6
    data[rng.random(data.shape) < missing] = np.nan
    return data


def ratings(rng, n_units, per_system=3):
    """(values, systems, units) of every rating."""
    item = rng.normal(0, 0.7, n_units)
    shape = (n_units, len(SYSTEM_EFFECTS), per_system)
    latent = 3 + SYSTEM_EFFECTS[None, :, None] + item[:, None, None] + rng.normal(size=shape)
    values = np.clip(np.round(latent), 1, 5)
    systems = np.broadcast_to(np.arange(len(SYSTEM_EFFECTS))[None, :, None], shape)
    units = np.broadcast_to(np.arange(n_units)[:, None, None], shape)
    return values.ravel(), systems.ravel(), units.ravel()


def true_values(rng) -> dict:
    big = 200_000
    nominal, two, cont = categorical(rng, big, 3, 0.1), categorical(rng, big, 2, 0.0), interval(rng, big)
    # each system's expected rating: 1..5 probabilities of the rounded, clipped normal latent
    values, systems, _ = ratings(rng, big, per_system=1)
    return {
        "alpha nominal": krippendorff_alpha(nominal, level_of_measurement="nominal").value,
        "alpha ordinal": krippendorff_alpha(nominal, level_of_measurement="ordinal").value,
        "alpha interval": krippendorff_alpha(cont, level_of_measurement="interval").value,
        "kappa": cohen_kappa(two[0], two[1], categories=CATEGORIES).value,
        "AC1": gwet_ac1(nominal, categories=CATEGORIES).value,
        "system means": np.array([values[systems == s].mean() for s in range(len(SYSTEM_EFFECTS))]),
    }


def kappa_of_tables(tables: np.ndarray) -> np.ndarray:
    """Unweighted Cohen's kappa of each (K*K,) row of counts; NaN where p_e = 1."""
    k = CATEGORIES.size
    p = tables.reshape(-1, k, k) / tables.sum(axis=1)[:, None, None]
    po = np.trace(p, axis1=1, axis2=2)
    pe = (p.sum(axis=2) * p.sum(axis=1)).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(1 - pe > 1e-12, (po - pe) / (1 - pe), np.nan)


def ac1_of_weights(counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Gwet's AC1 (Gwet 2014, as gwet_ac1) with unit ``u`` counted ``weights[b, u]`` times."""
    r = counts.sum(axis=1)
    multi, rated = r >= 2, r > 0
    pa_i = np.where(multi, (counts * (counts - 1)).sum(axis=1) / np.where(multi, r * (r - 1), 1), 0.0)
    shares = counts / np.where(rated, r, 1)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        pa = (weights @ pa_i) / (weights @ multi)
        pi = (weights @ shares) / (weights @ rated)[:, None]
        pe = (pi * (1 - pi)).sum(axis=1) / (CATEGORIES.size - 1)
        return np.where(1 - pe > 1e-12, (pa - pe) / (1 - pe), np.nan)


def vectorised(name, data, gen, resamples):
    """(value, replicates, jackknife) of kappa or AC1, resampling units as bootstrap_ci draws them."""
    n = data.shape[1]
    drawn = gen.integers(0, n, size=(resamples, n))
    weights = np.zeros((resamples, n))
    np.add.at(weights, (np.arange(resamples)[:, None], drawn), 1.0)
    leave_out = 1.0 - np.eye(n)
    if name == "kappa":
        cells = ((data[0] - 1) * CATEGORIES.size + data[1] - 1).astype(int)
        onehot = np.zeros((n, CATEGORIES.size**2))
        onehot[np.arange(n), cells] = 1.0
        return (
            kappa_of_tables(onehot.sum(axis=0)[None])[0],
            kappa_of_tables(weights @ onehot),
            kappa_of_tables(leave_out @ onehot),
        )
    counts = unit_category_counts(data, categories=CATEGORIES).counts
    return (
        ac1_of_weights(counts, np.ones((1, n)))[0],
        ac1_of_weights(counts, weights),
        ac1_of_weights(counts, leave_out),
    )


def bootstrap_limits(value, replicates, jackknife, method):
    valid = replicates[~np.isnan(replicates)]
    if 2 * valid.size < replicates.size:
        return None
    if method == "percentile":
        return tuple(np.quantile(valid, [(1 - LEVEL) / 2, (1 + LEVEL) / 2]))
    return bca_interval(valid, value, jackknife, confidence_level=LEVEL)


def check_vectorised_replicates():
    """The vectorised kappa / AC1 replicates give bootstrap_ci's intervals on the same draws."""
    rng = np.random.default_rng(7)
    for name, data, statistic in (
        ("kappa", categorical(rng, 60, 2, 0.0), lambda d: cohen_kappa(d[0], d[1], categories=CATEGORIES)),
        ("AC1", categorical(rng, 60, 3, 0.1), lambda d: gwet_ac1(d, categories=CATEGORIES)),
    ):
        value, replicates, jackknife = vectorised(name, data, np.random.default_rng(3), 200)
        for method in ("percentile", "bca"):
            library = bootstrap_ci(statistic, data, rng=np.random.default_rng(3), n_resamples=200, method=method)
            ours = bootstrap_limits(value, replicates, jackknife, method)
            if not np.allclose(library.confidence_interval, ours, atol=1e-9):
                raise SystemExit(f"{name} {method}: {ours} differs from bootstrap_ci's {library.confidence_interval}")


def intervals(name, rng, n_units, resamples):
    """{method: (low, high)} of one simulated study; (low, high) are arrays for system means."""
    boot = np.random.default_rng(rng.integers(2**63))
    out = {}
    if name.startswith("alpha"):
        level = name.split()[1]
        data = interval(rng, n_units) if level == "interval" else categorical(rng, n_units, 3, 0.1)
        for method in ("percentile", "bca"):
            res = bootstrap_alpha(
                data,
                level_of_measurement=level,
                rng=np.random.default_rng(boot.integers(2**63)),
                n_resamples=resamples,
                max_blocks=200,
                method=method,
            )
            out[method] = res.confidence_interval
    elif name in ("kappa", "AC1"):
        if name == "kappa":
            data = categorical(rng, n_units, 2, 0.0)
            statistic = lambda d: cohen_kappa(d[0], d[1], categories=CATEGORIES)  # noqa: E731
        else:
            data = categorical(rng, n_units, 3, 0.1)
            statistic = lambda d: gwet_ac1(d, categories=CATEGORIES)  # noqa: E731
        out["analytic"] = statistic(data).confidence_interval
        value, replicates, jackknife = vectorised(name, data, boot, resamples)
        for method in ("percentile", "bca"):
            out[method] = bootstrap_limits(value, replicates, jackknife, method)
    else:
        values, systems, units = ratings(rng, n_units)
        for method in ("percentile", "bca"):
            scores = system_scores(
                values,
                systems=systems,
                units=units,
                n_resamples=resamples,
                rng=np.random.default_rng(boot.integers(2**63)),
                method=method,
            )
            out[method] = (np.array([s.mean_ci[0] for s in scores]), np.array([s.mean_ci[1] for s in scores]))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=400, help="simulated studies per statistic and size")
    parser.add_argument("--resamples", type=int, default=500, help="bootstrap replicates (the dashboard's 500)")
    parser.add_argument("--only", action="append", help="a statistic to simulate (repeatable); default all")
    args = parser.parse_args()
    check_vectorised_replicates()
    truth = true_values(np.random.default_rng(2024))
    truth = {k: v for k, v in truth.items() if not args.only or k in args.only}
    print(f"{args.studies} studies per cell, {args.resamples} bootstrap replicates, {LEVEL:.0%} intervals\n")
    print(
        "True values: "
        + ", ".join(
            f"{k} {np.round(v, 4).tolist() if isinstance(v, np.ndarray) else round(v, 4)}" for k, v in truth.items()
        )
    )
    print()
    print("| statistic | units | method | coverage | SE | mean width | undefined |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    started = time.perf_counter()
    for name, true in truth.items():
        for n_units in SIZES:
            rng = np.random.default_rng([n_units, sum(map(ord, name))])
            hits, widths, undefined = {}, {}, {}
            for _ in range(args.studies):
                try:
                    study = intervals(name, rng, n_units, args.resamples)
                except InsufficientDataError:
                    study = {}
                for method, ci in study.items():
                    if ci is None:
                        undefined[method] = undefined.get(method, 0) + 1
                        continue
                    low, high = np.asarray(ci[0]), np.asarray(ci[1])
                    hits.setdefault(method, []).extend(np.atleast_1d((low <= true) & (true <= high)).tolist())
                    widths.setdefault(method, []).extend(np.atleast_1d(high - low).tolist())
            for method in sorted(hits, key=("analytic", "percentile", "bca").index):
                c = float(np.mean(hits[method]))
                se = np.sqrt(c * (1 - c) / len(hits[method]))
                print(
                    f"| {name} | {n_units} | {method} | {c:.3f} | {se:.3f} | {np.mean(widths[method]):.3f} | "
                    f"{undefined.get(method, 0)} |",
                    flush=True,
                )
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
