"""Rater models against crowd-kit and the majority vote: time and item accuracy of Dawid–Skene and MACE on
simulated studies, each run beside crowd-kit's on the same data (the baseline of the same run).

Run: ``.venv/bin/python tests/bench/bench_rater_models.py [--items 2000] [--per-item 3]`` (prints a Markdown
table). Not collected by pytest. The simulation is the tests' (``_simulated_categories`` in
tests/evaluation/stats/test_rater_models.py): seven raters, two reliable, two middling, a spammer, a rater one
category high and one near chance, three categories. Both libraries run the same EM for the same rounds
(Dawid–Skene 100, MACE 50 with one start: crowd-kit's restarts repeat one start), so the times compare the
implementations, not the stopping rules.
"""

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from evaluation.stats import dawid_skene, mace  # noqa: E402
from tests.evaluation.stats.test_rater_models import K, _long, _majority, _simulated_categories  # noqa: E402


def timed(run):
    start = time.perf_counter()
    result = run()
    return result, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--per-item", type=int, default=3)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")  # crowd-kit's pandas deprecation warnings, thousands a run
    from crowdkit.aggregation import MACE, DawidSkene

    data, truth, _ = _simulated_categories(0, n_units=args.items, per_unit=args.per_item)
    frame = _long(data)
    # crowd-kit's MACE sums its counts in sorted label order but keeps its parameters in the order labels first
    # appear: renumbered by first appearance, both orders are one (see test_mace_matches_crowd_kit_from_its_start)
    codes, uniques = pd.factorize(frame["label"])
    frame["label"] = codes
    rows = [("majority vote", np.mean(_majority(data) == truth), None)]
    ours, t_ours = timed(lambda: dawid_skene(data, categories=range(K), max_iter=100, tol=-np.inf))
    theirs, t_theirs = timed(lambda: DawidSkene(n_iter=100, tol=-np.inf).fit(frame))
    labels = uniques.to_numpy()[theirs.labels_.sort_index().to_numpy()]
    rows += [
        ("Dawid–Skene, evaluation.stats", np.mean(ours.labels == truth), t_ours),
        ("Dawid–Skene, crowd-kit 1.4", np.mean(labels == truth), t_theirs),
    ]
    ours, t_ours = timed(
        lambda: mace(data, categories=range(K), rng=np.random.default_rng(0), n_restarts=1, max_iter=50, tol=-np.inf)
    )
    theirs, t_theirs = timed(lambda: MACE(method="em", n_restarts=1, n_iter=50, random_state=0).fit(frame))
    labels = uniques.to_numpy()[theirs.labels_.sort_index().to_numpy()]
    rows += [
        ("MACE (1 start), evaluation.stats", np.mean(ours.labels == truth), t_ours),
        ("MACE (1 start), crowd-kit 1.4", np.mean(labels == truth), t_theirs),
    ]
    print(f"{args.items} items × {args.per_item} ratings, 7 raters, 3 categories\n")
    print("| model | item accuracy | seconds |\n| --- | ---: | ---: |")
    for name, accuracy, seconds in rows:
        print(f"| {name} | {accuracy:.3f} | {'' if seconds is None else f'{seconds:.3f}'} |")


if __name__ == "__main__":
    main()
