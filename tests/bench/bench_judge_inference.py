"""Judges and planning by simulation, at more sizes than the tests run: coverage of prediction-powered,
humans-only and judge-only intervals for a system mean with a biased judge; the alt-test's pass rate
for an exchangeable and a noisy judge; and the planner's power against a simulation of every rating.

Run: ``.venv/bin/python tests/bench/bench_judge_inference.py [--studies 1000]`` (prints Markdown
tables). Not collected by pytest; the tests pin one size of each (tests/evaluation/stats/).

Models (fixed seeds, so a run repeats):
- prediction-powered: Likert-like human means (N(3.2, 1) in thirds, clipped to 1..5); the judge adds
  a bias (0, 0.3, 0.6) and noise N(0, 0.5); n human-rated and 2,000 judge-only units;
- alt-test: the authors' simulation (4 categories, raters keep the true label with probability
  0.7, else a uniform draw); the judge likewise (noise 0.3, exchangeable) or with noise 0.8;
- planner: the variance components of tests/evaluation/stats/test_study_planning.py.
"""

import argparse
import os
import sys
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from evaluation.stats import VarianceComponents, alt_test, design_power, prediction_powered_mean  # noqa: E402
from tests.evaluation.stats.test_alt_test import _study  # noqa: E402
from tests.evaluation.stats.test_study_planning import TRUE, _direct_power  # noqa: E402


def coverage(studies: int) -> None:
    rng = np.random.default_rng(1)
    population = np.clip(np.round(rng.normal(3.2, 1.0, 2_000_000) * 3) / 3, 1, 5)
    truth = population.mean()
    print("| human-rated units | judge bias | PPI | humans only | judge only | mean units saved |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in (50, 100, 400):
        for bias in (0.0, 0.3, 0.6):
            hits = np.zeros(3)
            saved = 0.0
            for _ in range(studies):
                y = rng.choice(population, n + 2000)
                f = y + bias + rng.normal(0, 0.5, n + 2000)
                r = prediction_powered_mean(y[:n], f[:n], f[n:])
                for k, e in enumerate((r.prediction_powered, r.human_only, r.judge_only)):
                    hits[k] += e.ci_low <= truth <= e.ci_high
                saved += r.n_saved
            print(f"| {n} | {bias} | " + " | ".join(f"{h / studies:.3f}" for h in hits) + f" | {saved / studies:.0f} |")


def alt_test_rates(studies: int) -> None:
    rng = np.random.default_rng(2)
    print("\n| items | raters | ε | exchangeable judge passes | noisy judge passes |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for n in (50, 100, 200):
        for raters in (3, 5):
            for epsilon in (0.0, 0.1, 0.2):
                good = bad = 0
                for _ in range(studies):
                    humans, judge = _study(rng, n, raters, judge_noise=0.3)
                    good += alt_test(humans, judge, alignment="accuracy", epsilon=epsilon)[0].passed
                    humans, judge = _study(rng, n, raters, judge_noise=0.8)
                    bad += alt_test(humans, judge, alignment="accuracy", epsilon=epsilon)[0].passed
                print(f"| {n} | {raters} | {epsilon} | {good / studies:.3f} | {bad / studies:.3f} |")


def planner(studies: int) -> None:
    rng = np.random.default_rng(3)
    components = VarianceComponents(*TRUE.values(), 0.0, 0, 0, 0)
    print("\n| items | raters per item | planner | direct | difference (pp) |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for n in (20, 40, 80, 160):
        for k in (1, 2, 4):
            common = {"comparison": "mean_difference", "effect": 0.25, "n_items": n, "raters_per_item": k}
            planned = design_power(components, n_simulations=max(studies * 10, 10_000), rng=rng, **common).power
            direct = _direct_power(rng, "mean_difference", 0.25, n, k, components, max(studies * 10, 10_000))
            print(f"| {n} | {k} | {planned:.3f} | {direct:.3f} | {100 * (planned - direct):+.1f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=1000)
    studies = parser.parse_args().studies
    coverage(studies)
    alt_test_rates(min(studies, 400))
    planner(studies)
