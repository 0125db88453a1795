"""Benchmark of agreement.stats: Krippendorff's alpha against the ``krippendorff`` package, and timings.

Run: ``.venv/bin/python tests/bench/bench_agreement_stats.py`` (prints Markdown tables). Not collected
by pytest (the file name does not start with ``test_``) and it asserts nothing about wall time.

Time is the best of several runs after a warm-up; peak memory is measured in a separate run
with ``tracemalloc`` (numpy's allocations during the call; the input matrix exists before).
BLAS runs single-threaded for both libraries (see below).
"""

import os
import sys
import time
import tracemalloc
from importlib import metadata
from pathlib import Path

# One BLAS thread for both libraries: on a shared 2-core machine a threaded BLAS call on a small
# matrix can stall for milliseconds waiting for a busy core, which measures the neighbours, not the code.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import krippendorff  # noqa: E402

from agreement.stats import cohen_kappa, fleiss_kappa, gwet_ac1, icc, krippendorff_alpha, unit_category_counts  # noqa: E402
from agreement.stats.bootstrap import bootstrap_alpha, bootstrap_ci  # noqa: E402

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def likert_matrix(rng, n_units, n_raters, keep):
    """5-point ratings: 70% copy the unit's true value, the rest are uniform; ``1 - keep`` missing."""
    truth = rng.integers(1, 6, n_units)
    noise = rng.integers(1, 6, (n_raters, n_units))
    data = np.where(rng.random((n_raters, n_units)) < 0.7, truth, noise).astype(float)
    data[rng.random((n_raters, n_units)) >= keep] = np.nan
    return data


def best_time(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def peak_memory(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def compare_alpha(title, data):
    print(f"\n### {title}\n")
    present = ~np.isnan(data)
    print(
        f"{data.shape[0]} raters x {data.shape[1]:,} units, {present.sum():,} ratings "
        f"({present.sum(axis=0).mean():.2f} per unit)\n"
    )
    print(
        "| level | ours | `krippendorff` | speed-up | ours peak | `krippendorff` peak | memory ratio | max abs diff |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for level in LEVELS:
        ours = lambda level=level: krippendorff_alpha(data, level_of_measurement=level)  # noqa: E731
        theirs = lambda level=level: krippendorff.alpha(data, level_of_measurement=level)  # noqa: E731
        t_ours, t_theirs = best_time(ours, 7), best_time(theirs, 3)
        m_ours, m_theirs = peak_memory(ours), peak_memory(theirs)
        diff = abs(ours().value - theirs())
        print(
            f"| {level} | {t_ours * 1e3:.1f} ms | {t_theirs * 1e3:.1f} ms | {t_theirs / t_ours:.1f}x | "
            f"{m_ours / 1e6:.1f} MB | {m_theirs / 1e6:.1f} MB | {m_theirs / m_ours:.1f}x | {diff:.1e} |"
        )


def continuous(rng):
    print("\n### Continuous 0-100 sliders (one decimal, ~1,000 distinct values), 3 raters x 300,000 units\n")
    truth = rng.uniform(0, 100, 300_000)
    data = np.clip(truth + rng.normal(0, 10, (3, truth.size)), 0, 100).round(1)
    data[rng.random(data.shape) < 0.05] = np.nan
    n_values = np.unique(data[~np.isnan(data)]).size
    print("| level | ours | ours peak |")
    print("| --- | --- | --- |")
    for level in LEVELS:
        fn = lambda level=level: krippendorff_alpha(data, level_of_measurement=level)  # noqa: E731
        print(f"| {level} | {best_time(fn, 3) * 1e3:.1f} ms | {peak_memory(fn) / 1e6:.1f} MB |")
    needed = data.shape[1] * n_values * n_values * 8
    print(
        f"\nThe `krippendorff` package builds a units x values x values array here "
        f"({data.shape[1]:,} x {n_values:,} x {n_values:,} float64 = {needed / 2**30:,.0f} GiB) and fails "
        "with a MemoryError, so it is not run."
    )


def other_timings(rng):
    print("\n### Other statistics\n")
    big = likert_matrix(rng, 300_000, 3, 0.95)
    counts = unit_category_counts(big, categories=[1, 2, 3, 4, 5]).counts
    a, b = big[0], big[1]
    small = likert_matrix(rng, 1_000, 3, 1.0)
    mid = likert_matrix(rng, 10_000, 3, 0.95)
    cases = [
        ("Fleiss' kappa (counts given), 300,000 units x 5 categories", lambda: fleiss_kappa(counts), 5),
        ("per-unit category counts, 3 x 300,000 matrix", lambda: unit_category_counts(big), 5),
        (
            "Cohen's kappa (quadratic, with SE), 2 raters x 300,000 units",
            lambda: cohen_kappa(a, b, weights="quadratic"),
            5,
        ),
        ("Gwet's AC1 (with SE), 3 raters x 300,000 units", lambda: gwet_ac1(big), 5),
        ("ICC(2,1) with CI, 3 raters x 300,000 units", lambda: icc(big, model="ICC(2,1)"), 5),
        (
            "1,000 bootstrap replicates of nominal alpha, 3 raters x 10,000 units",
            lambda: bootstrap_alpha(mid, rng=np.random.default_rng(0), n_resamples=1000),
            1,
        ),
        (
            "1,000 bootstrap replicates of interval alpha, 3 raters x 10,000 units",
            lambda: bootstrap_alpha(
                mid, level_of_measurement="interval", rng=np.random.default_rng(0), n_resamples=1000
            ),
            1,
        ),
        (
            "1,000 bootstrap replicates of Cohen's kappa, 1,000 units",
            lambda: bootstrap_ci(lambda d: cohen_kappa(d[0], d[1]), small[:2], rng=0, n_resamples=1000),
            1,
        ),
        (
            "1,000 bootstrap replicates of AC1, 3 raters x 1,000 units",
            lambda: bootstrap_ci(gwet_ac1, small, rng=0, n_resamples=1000),
            1,
        ),
        (
            "1,000 bootstrap replicates of ICC(2,1), 3 raters x 1,000 units",
            lambda: bootstrap_ci(icc, small, rng=0, n_resamples=1000),
            1,
        ),
    ]
    print("| what | time |")
    print("| --- | --- |")
    for label, fn, repeats in cases:
        seconds = best_time(fn, repeats)
        shown = f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"
        print(f"| {label} | {shown} |")


def main():
    rng = np.random.default_rng(20240301)
    print(f"numpy {np.__version__}, krippendorff {metadata.version('krippendorff')}")
    compare_alpha("300,000 units x 3 raters, 5-point scale, 5% missing", likert_matrix(rng, 300_000, 3, 0.95))
    compare_alpha(
        "50,000 units x 20 raters, sparse (each rater rates 15% of units)",
        likert_matrix(rng, 50_000, 20, 0.15),
    )
    continuous(rng)
    other_timings(rng)


if __name__ == "__main__":
    main()
