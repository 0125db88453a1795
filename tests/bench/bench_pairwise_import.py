"""How far the platform's pairwise judgment import (annotation.services.judgment_import) is from 10 million
judgments in the 5-minute bar: items imported first (timed apart), then judgment lines, on PostgreSQL, each
size in its own process on a fresh database; rates extrapolated to 10M.

    nice .venv/bin/python tests/bench/bench_pairwise_import.py [--judgments 100000 200000]
                                                                # needs PostgreSQL on 127.0.0.1:5432

An arena-like study: every item has two outputs from 50 systems, 4 raters judge each item (winner or tie).
"""

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADMIN_URL = os.environ.get("BENCH_ADMIN_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
RATERS_PER_ITEM = 4
TARGET = 10_000_000


def write_files(folder: Path, n_judgments: int) -> tuple[Path, Path]:
    rng = random.Random(n_judgments)
    systems = [f"model-{s}" for s in range(50)]
    items, judgments = folder / "items.jsonl", folder / "judgments.jsonl"
    with items.open("w") as fi, judgments.open("w") as fj:
        for i in range(n_judgments // RATERS_PER_ITEM):
            a, b = rng.sample(systems, 2)
            fi.write(
                json.dumps(
                    {
                        "external_id": f"q{i}",
                        "input": f"prompt {i}",
                        "outputs": [{"system": a, "text": f"answer of {a}"}, {"system": b, "text": f"answer of {b}"}],
                    }
                )
                + "\n"
            )
            for r in rng.sample(range(2000), RATERS_PER_ITEM):
                fj.write(
                    json.dumps(
                        {
                            "item": f"q{i}",
                            "rater": f"worker-{r}",
                            "criterion": "overall",
                            "value": rng.choice((a, b, "tie")),
                            "shown_order": [a, b],
                            "submitted_at": "2024-03-01T10:00:00Z",
                        }
                    )
                    + "\n"
                )
    return items, judgments


def run_one(items: str, judgments: str) -> None:
    """In a child process: Django on the bench database, one project, the two imports timed."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model

    from annotation.services import item_import, judgment_import, project_create

    lead = get_user_model().objects.create_user("bench-lead")
    project = project_create(
        created_by=lead,
        name="bench",
        task_type="pairwise",
        criteria=[{"name": "overall", "scale_min": 0, "scale_max": 2}],
    )
    t0 = time.perf_counter()
    with open(items, "rb") as stream:
        n_items = item_import(project=project, stream=stream, fmt="jsonl")
    t1 = time.perf_counter()
    with open(judgments, "rb") as stream:
        n = judgment_import(project=project, stream=stream)
    t2 = time.perf_counter()
    print(
        json.dumps(
            {
                "items": n_items,
                "item_seconds": t1 - t0,
                "judgments": n,
                "judgment_seconds": t2 - t1,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


def psql(sql: str) -> None:
    subprocess.run(["psql", ADMIN_URL, "-qc", sql], check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--judgments", type=int, nargs="+", default=[100_000, 200_000])
    args = parser.parse_args()
    print(
        "| judgments | items | item import (s) | judgment import (s) | judgments/s | peak RSS (MiB) "
        "| 10M judgments + 2.5M items at this rate (s) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    runs = []
    for n in args.judgments:
        with tempfile.TemporaryDirectory() as tmp:
            items, judgments = write_files(Path(tmp), n)
            db = f"concord_bench_{uuid.uuid4().hex[:8]}"
            psql(f"CREATE DATABASE {db}")
            try:
                env = {
                    **os.environ,
                    "DJANGO_SETTINGS_MODULE": "config.settings.base",
                    "DJANGO_SECRET_KEY": "bench-" + "x" * 50,
                    "DATABASE_URL": ADMIN_URL.rsplit("/", 1)[0] + "/" + db,
                }
                env.pop("REDIS_URL", None)
                out = subprocess.run(
                    [sys.executable, __file__, "--run", str(items), str(judgments)],
                    env=env,
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            finally:
                psql(f"DROP DATABASE {db}")
        r = json.loads(out.strip().splitlines()[-1])
        rate = r["judgments"] / r["judgment_seconds"]
        extrapolated = TARGET / rate + TARGET / RATERS_PER_ITEM / (r["items"] / r["item_seconds"])
        print(
            f"| {r['judgments']:,} | {r['items']:,} | {r['item_seconds']:.1f} | {r['judgment_seconds']:.1f} "
            f"| {rate:,.0f} | {r['peak_rss_mb']:.0f} | {extrapolated:,.0f} |",
            flush=True,
        )
        runs.append(r)
    if len(runs) > 1:
        # the rater accounts (one per distinct rater, up to 2,000) are a fixed cost: the difference
        # between the two largest runs gives the rate per further judgment
        a, b = runs[-2], runs[-1]
        marginal = (b["judgments"] - a["judgments"]) / (b["judgment_seconds"] - a["judgment_seconds"])
        item_rate = (b["items"] - a["items"]) / (b["item_seconds"] - a["item_seconds"])
        seconds = TARGET / marginal + TARGET / RATERS_PER_ITEM / item_rate
        print(
            f"\nmarginal rates between the two largest runs: {marginal:,.0f} judgments/s, {item_rate:,.0f} items/s; "
            f"10M judgments and 2.5M items at these rates: {seconds:,.0f} s"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--run"]:
        sys.path.insert(0, str(ROOT))
        run_one(sys.argv[2], sys.argv[3])
    else:
        main()
