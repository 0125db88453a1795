"""Item import benchmark: 10,000 and 100,000 JSONL items (two ~300-character outputs each) into
PostgreSQL through the import service (check every line, then COPY), against a baseline of Django
``bulk_create`` of the same rows without any checking. Each run is its own process, so the peak RSS
printed is that run's own; a flat figure from 10k to 100k shows memory does not grow with the file.

    .venv/bin/python tests/bench/bench_item_import.py            # needs PostgreSQL on 127.0.0.1:5432
"""

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
WORDS = "the a model output text summary story quick brown fox jumps over lazy dog river city".split()


def write_items(path: Path, n: int) -> None:
    rng = random.Random(n)
    with path.open("w") as f:
        for i in range(n):
            text = lambda: " ".join(rng.choices(WORDS, k=55))  # noqa: E731
            f.write(
                json.dumps(
                    {
                        "external_id": f"doc{i}",
                        "input": text(),
                        "references": [text()],
                        "outputs": [{"system": "bart", "text": text()}, {"system": "pegasus", "text": text()}],
                        "subgroup": f"g{i % 5}",
                        "meta": {"i": i},
                    }
                )
                + "\n"
            )


def run_one(mode: str, path: str) -> None:
    """In a child process: set Django up on the bench database and time one import."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model

    from annotation.models import Item, Output
    from annotation.services import item_import, project_create

    lead = get_user_model().objects.create_user("bench-lead")
    project = project_create(
        created_by=lead,
        name="bench",
        task_type="likert",
        criteria=[{"name": "fluency", "scale_min": 1, "scale_max": 5}],
    )
    t0 = time.perf_counter()
    if mode == "concord":
        with open(path, "rb") as stream:
            n = item_import(project=project, stream=stream, fmt="jsonl")
    else:
        n = 0
        from django.db import transaction

        with open(path) as f, transaction.atomic():
            batch = []
            for line in f:
                batch.append(json.loads(line))
                if len(batch) == 2000:
                    n += _bulk_create(project, batch, Item, Output)
                    batch = []
            n += _bulk_create(project, batch, Item, Output)
    seconds = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"mode": mode, "items": n, "seconds": seconds, "peak_rss_mb": peak_mb}))


def _bulk_create(project, batch, Item, Output) -> int:
    items = Item.objects.bulk_create(
        [
            Item(
                project=project,
                external_id=r["external_id"],
                input=r["input"],
                references=r["references"],
                subgroup=r["subgroup"],
                meta=r["meta"],
            )
            for r in batch
        ]
    )
    Output.objects.bulk_create(
        [
            Output(item=item, position=k, system=o["system"], text=o["text"])
            for item, r in zip(items, batch, strict=True)
            for k, o in enumerate(r["outputs"])
        ]
    )
    return len(items)


def psql(sql: str) -> None:
    subprocess.run(["psql", ADMIN_URL, "-qc", sql], check=True, capture_output=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for n in (10_000, 100_000):
            path = Path(tmp) / f"items-{n}.jsonl"
            write_items(path, n)
            size_mb = path.stat().st_size / 1e6
            for mode in ("concord", "bulk_create"):
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
                        [sys.executable, __file__, "--run", mode, str(path)],
                        env=env,
                        cwd=ROOT,
                        capture_output=True,
                        text=True,
                        check=True,
                    ).stdout
                finally:
                    psql(f"DROP DATABASE {db}")
                result = json.loads(out.strip().splitlines()[-1])
                rows.append((n, size_mb, result))
                print(
                    f"{n:>7} items ({size_mb:5.1f} MB)  {mode:<12} {result['seconds']:6.2f} s  "
                    f"{n / result['seconds']:8.0f} items/s  peak RSS {result['peak_rss_mb']:6.1f} MB",
                    flush=True,
                )
        ours = {n: r for n, _, r in rows if r["mode"] == "concord"}
        base = {n: r for n, _, r in rows if r["mode"] == "bulk_create"}
        for n in ours:
            print(
                f"{n:>7} items: concord (checked + COPY) is {base[n]['seconds'] / ours[n]['seconds']:.2f}x the speed "
                f"of unchecked bulk_create"
            )
        print(
            f"peak RSS 10k → 100k: concord {ours[10_000]['peak_rss_mb']:.0f} → "
            f"{ours[100_000]['peak_rss_mb']:.0f} MB, "
            f"bulk_create {base[10_000]['peak_rss_mb']:.0f} → {base[100_000]['peak_rss_mb']:.0f} MB"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--run"]:
        sys.path.insert(0, str(ROOT))
        run_one(sys.argv[2], sys.argv[3])
    else:
        main()
