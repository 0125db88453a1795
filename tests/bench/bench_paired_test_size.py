"""Size of the paired tests by simulation: how often the paired bootstrap test and the randomisation
test reject a true null hypothesis at the 5% level, by number of units; the reason
``evaluation.stats.significance.RANDOMIZATION_BELOW_UNITS`` is 100.

Run: ``.venv/bin/python tests/bench/bench_paired_test_size.py [--studies 1000]`` (prints a Markdown
table). Not collected by pytest. Each study draws paired scores whose differences are symmetric
about 0 with heavy tails (Student's t, 3 df), and tests them with 999 resamples; the standard error
of a rejection rate r over S studies is sqrt(r (1 - r) / S).
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from evaluation.stats import paired_test  # noqa: E402

SIZES = (10, 25, 50, 100, 200)
TESTS = ("bootstrap", "randomization")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=1000)
    args = parser.parse_args()
    se = np.sqrt(0.05 * 0.95 / args.studies)
    print(f"{args.studies} studies per size, 999 resamples, 5% level; SE at 5%: {se:.4f}\n")
    print("| units | bootstrap | randomisation |")
    print("| --- | --- | --- |")
    for n in SIZES:
        rng = np.random.default_rng(n)
        rejected = dict.fromkeys(TESTS, 0)
        for _ in range(args.studies):
            a = rng.normal(size=n)
            b = a + rng.standard_t(3, size=n)
            for test in TESTS:
                rejected[test] += paired_test(a, b, test=test, n_resamples=999, rng=rng).p_value <= 0.05
        print(
            f"| {n} | {rejected['bootstrap'] / args.studies:.3f} | {rejected['randomization'] / args.studies:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
