"""Export benchmark: a likert project of 1,000,000 judgments (83,334 items × 2 outputs × 2 criteria × 3
of 50 raters, 10 subgroups, 26 weeks, ~300-character texts) on PostgreSQL, exported through the export
service to JSONL + CSV + Parquet in one zip, with its agreement snapshots already stored (as after the
weekly recompute). A 100,000-judgment project is exported too: each export runs in its own process, so
the peak RSS printed is that export's own, and equal figures at 100k and 1M show memory stays flat.

The baseline, in the same run, is the naive export most code bases start with: Django model objects
with select_related, each turned into a dict and json.dumps'ed to one JSONL file (one format only).

    .venv/bin/python tests/bench/bench_export.py [--judgments 1000000] [--small 100000]

With ``--workers 1,2`` the large project is instead exported as the API exports it, on that many real ``celery
worker`` processes (solo pool, on ``--broker``) with CONCORD_EXPORT_PARTS set to the number of workers, timed from
the enqueue to the job's success (the zip renamed into place); every number of workers in each of ``--rounds``
rounds (interleaved), with the sha256 of each zip's data files (equal: the same tables); ``--split subgroup``
exports split by subgroup (the judgments then go in pieces):

    .venv/bin/python tests/bench/bench_export.py --judgments 300000 --workers 1,2 --rounds 2
"""

import argparse
import hashlib
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADMIN_URL = os.environ.get("BENCH_ADMIN_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
WORDS = "the a model output text summary story quick brown fox jumps over lazy dog river city".split()


def populate(n_judgments: int, name: str, n_raters=50, n_subgroups=10, n_weeks=26, seed=1) -> int:
    """Writes users, a likert project, items, outputs and judgments with COPY; returns the project id."""
    from datetime import timedelta

    import numpy as np
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.models import Item, Judgment, Output
    from annotation.services import project_create
    from core.bulk_insert import insert_rows, refresh_planner_statistics, reserve_ids

    rng = np.random.default_rng(seed)
    User = get_user_model()
    lead, _ = User.objects.get_or_create(username="bench-lead")
    project = project_create(created_by=lead, name=name, task_type="likert", raters_per_item=3,
                             double_annotation_share=1.0, criteria=[
                                 {"name": "fluency", "scale_min": 1, "scale_max": 5},
                                 {"name": "coherence", "scale_min": 1, "scale_max": 5}])  # fmt: skip
    criteria = list(project.criteria.values_list("id", flat=True))
    raters = [User.objects.get_or_create(username=f"bench-rater-{k}", defaults={"email": f"r{k}@example.org"})[0].id
              for k in range(n_raters)]  # fmt: skip
    n_items = -(-n_judgments // (2 * len(criteria) * 3))
    item_ids, now = reserve_ids(Item, n_items), timezone.now()

    def text(k):
        return " ".join(WORDS[(k * 7 + j) % len(WORDS)] for j in range(55))

    insert_rows(Item, ["id", "project", "external_id", "input", "references", "subgroup", "meta", "n_target",
                       "n_judged", "created_at"],
                [(i, project.id, f"doc{k}", text(k), [text(k + 1)], f"g{k % n_subgroups}", {"k": k}, 3, 3, now)
                 for k, i in enumerate(item_ids)])  # fmt: skip
    output_ids = reserve_ids(Output, 2 * n_items)
    insert_rows(Output, ["id", "item", "position", "system", "text"],
                [(output_ids[2 * k + s], i, s, ("bart", "pegasus")[s], text(k + s))
                 for k, i in enumerate(item_ids) for s in (0, 1)])  # fmt: skip
    fields = ["project", "item", "output", "criterion", "rater", "value", "label", "shown_order", "source",
              "client_token", "submitted_at", "duration_ms", "is_current"]  # fmt: skip
    quality = rng.integers(1, 6, 2 * n_items)
    week = rng.integers(0, n_weeks, n_items)
    rows, written = [], 0
    for k, item in enumerate(item_ids):
        when = now - timedelta(weeks=int(week[k]), minutes=k % 1000)
        for r in rng.choice(n_raters, 3, replace=False):
            order = ["bart", "pegasus"] if (k + r) % 2 else ["pegasus", "bart"]
            for s in (0, 1):
                for c in criteria:
                    if written >= n_judgments:
                        break
                    v = int(min(5, max(1, quality[2 * k + s] + rng.choice((-1, 0, 0, 0, 1)))))
                    rows.append((project.id, item, output_ids[2 * k + s], c, raters[r], float(v), "", order,
                                 "rater", "", when, 8000 + 37 * (k % 500), True))  # fmt: skip
                    written += 1
        if len(rows) >= 100_000:
            insert_rows(Judgment, fields, rows)
            rows = []
    insert_rows(Judgment, fields, rows)
    refresh_planner_statistics(Item, Output, Judgment)
    return project.id


def setup_database(n_judgments: int, n_small: int) -> dict:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from agreement.services import snapshot_compute_for_project

    out = {}
    for label, n in (("small", n_small), ("large", n_judgments)):
        t = time.perf_counter()
        project_id = populate(n, f"bench {label}")
        populated = time.perf_counter() - t
        t = time.perf_counter()
        snapshot_compute_for_project(project_id=project_id)
        out[label] = {"project": project_id, "judgments": n, "populate_s": populated,
                      "agreement_s": time.perf_counter() - t}  # fmt: skip
    return out


def export_concord(project_id: int, path: Path) -> dict:
    from annotation.models import Project
    from evaluation.services import ExportOptions, export_write

    phases, start = {}, time.perf_counter()

    def progress(done, total, message=""):
        phases.setdefault(message, time.perf_counter() - start)

    summary = export_write(project=Project.objects.get(pk=project_id), options=ExportOptions(),
                           destination=path, progress=progress)  # fmt: skip
    return {"n": summary["n_judgments"], "phases": phases}


def export_naive(project_id: int, path: Path) -> dict:
    """Model objects through the ORM (select_related, the whole queryset evaluated), one JSON dict each."""
    from annotation.models import Judgment

    judgments = (Judgment.objects.filter(project_id=project_id, is_current=True)
                 .select_related("item", "output", "criterion", "rater").order_by("id"))  # fmt: skip
    n = 0
    with open(path, "w") as f:
        for j in list(judgments):
            f.write(json.dumps({
                "item": j.item.external_id, "system": j.output.system, "criterion": j.criterion.name,
                "rater": j.rater.username, "value": j.value, "submitted_at": j.submitted_at.isoformat(),
                "shown_order": j.shown_order, "duration_ms": j.duration_ms, "subgroup": j.item.subgroup,
                "source": j.source, "gold_item": j.item.gold is not None}) + "\n")  # fmt: skip
            n += 1
    return {"n": n, "phases": {}}


def run_child(mode: str, project_id: int) -> dict:
    import django

    django.setup()
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / ("export.zip" if mode == "concord" else "judgments.jsonl")
        t = time.perf_counter()
        result = (export_concord if mode == "concord" else export_naive)(project_id, path)
        seconds = time.perf_counter() - t
        size = path.stat().st_size
    return {**result, "seconds": seconds, "bytes": size,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}  # fmt: skip


def export_on_workers(project_id: int, n_workers: int, split: str) -> dict:
    """Once ``n_workers`` Celery workers answer, starts an export as the API does and times it from the enqueue to
    the job's success, polling the job row."""
    import django

    django.setup()
    from annotation.models import Project
    from config.celery_app import app
    from core.models import Job
    from evaluation.services import ExportOptions, export_start
    from evaluation.services.export import export_path

    queue = app.conf.task_default_queue
    names = [f"{queue}-{k}@{os.uname().nodename}" for k in range(n_workers)]
    deadline = time.time() + 120
    while len(app.control.ping(destination=names, timeout=1.0)) < n_workers:
        if time.time() > deadline:
            raise RuntimeError(f"{n_workers} workers did not answer within 120 s")
    project = Project.objects.get(pk=project_id)
    t0 = time.perf_counter()
    export = export_start(project=project, options=ExportOptions(split=split), created_by=project.created_by)
    while (state := Job.objects.values_list("state", flat=True).get(pk=export.job_id)) not in ("success", "failure"):
        time.sleep(0.02)
    total = time.perf_counter() - t0
    job = Job.objects.get(pk=export.job_id)
    if state == "failure":
        raise RuntimeError(f"the export failed: {job.error}")
    export.refresh_from_db()
    with zipfile.ZipFile(export_path(export)) as archive:
        data = hashlib.sha256()
        for name in archive.namelist():
            if name.startswith("data/"):
                data.update(name.encode() + archive.read(name))
    return {"total_s": total, "n": job.result["n_judgments"], "bytes": job.result["size_bytes"],
            "data_sha256": data.hexdigest()[:16]}  # fmt: skip


def on_workers(args, env: dict, child, project_id: int) -> None:
    """Every number of workers, round after round (interleaved), then the median times."""
    from tests.bench.bench_agreement_recompute import start_workers, stop_workers, worker_log

    counts = [int(n) for n in args.workers.split(",")]
    times: dict[int, list[float]] = {n: [] for n in counts}
    for k in range(args.rounds):
        for n in counts:
            queue = f"bench-export-{uuid.uuid4().hex[:8]}"
            worker_env = {**env, "REDIS_URL": args.broker, "CELERY_TASK_DEFAULT_QUEUE": queue,
                          "CELERY_UNACKED_KEY": f"unacked-{queue}", "CONCORD_EXPORT_PARTS": str(n)}  # fmt: skip
            workers = start_workers(ROOT, worker_env, n, queue)
            try:
                r = child("--on-workers", str(project_id), str(n), "--split", args.split, extra_env=worker_env)
            finally:
                stop_workers(workers)
            parts = re.findall(r"Task evaluation\.(\w+)\[[^]]+\] succeeded in ([\d.]+)s", worker_log(queue).read_text())
            times[n].append(r["total_s"])
            tasks = ", ".join(f"{task} {float(seconds):.1f} s" for task, seconds in parts)
            print(f"round {k + 1}, {n} worker(s): {r['total_s']:.1f} s for {r['n']:,} judgments "
                  f"({r['bytes'] / 2**20:.0f} MB zip, data sha256 {r['data_sha256']}; load average "
                  f"{os.getloadavg()[0]:.1f}); tasks: {tasks}")  # fmt: skip
    for n in counts:
        print(f"{n} worker(s): median {statistics.median(times[n]):.1f} s over {len(times[n])} round(s)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--judgments", type=int, default=1_000_000)
    parser.add_argument("--small", type=int, default=100_000)
    parser.add_argument("--workers", help="comma-separated numbers of Celery worker processes (e.g. 1,2), see above")
    parser.add_argument("--rounds", type=int, default=1, help="exports per number of --workers, interleaved")
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/3", help="the Redis of --workers")
    parser.add_argument("--split", choices=("all", "subgroup"), default="all", help="the export option of --workers")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "PROJECT"), help=argparse.SUPPRESS)
    parser.add_argument("--on-workers", nargs=2, type=int, metavar=("PROJECT", "WORKERS"), help=argparse.SUPPRESS)
    parser.add_argument("--setup", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.child:
        print(json.dumps(run_child(args.child[0], int(args.child[1]))))
        return
    if args.on_workers:
        print(json.dumps(export_on_workers(*args.on_workers, args.split)))
        return
    if args.setup:
        print(json.dumps(setup_database(args.judgments, args.small)))
        return
    db = f"concord_bench_{uuid.uuid4().hex[:8]}"
    subprocess.run(["psql", ADMIN_URL, "-qc", f"CREATE DATABASE {db}"], check=True, capture_output=True)
    media = tempfile.mkdtemp(prefix="bench-media-")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.base", "DJANGO_SECRET_KEY": "b" * 60,
           "DATABASE_URL": ADMIN_URL.rsplit("/", 1)[0] + "/" + db, "CONCORD_MEDIA_ROOT": media}  # fmt: skip
    env.pop("REDIS_URL", None)

    def child(*extra, extra_env: dict | None = None) -> dict:
        out = subprocess.run([sys.executable, __file__, *extra], env={**env, **(extra_env or {})}, cwd=ROOT,
                             capture_output=True, text=True)  # fmt: skip
        if out.returncode:
            sys.exit(out.stderr[-3000:])
        return json.loads(out.stdout.strip().splitlines()[-1])

    try:
        setup = child("--setup", "--judgments", str(args.judgments), "--small", str(args.small))
        if args.workers:
            print(f"populated: {setup['large']['judgments']:,} judgments in {setup['large']['populate_s']:.0f} s")
            on_workers(args, env, child, setup["large"]["project"])
            return
        results = {}
        for label in ("small", "large"):
            for mode in ("concord", "naive"):
                results[(label, mode)] = child("--child", mode, str(setup[label]["project"]))
    finally:
        subprocess.run(["psql", ADMIN_URL, "-qc", f"DROP DATABASE {db}"], check=True, capture_output=True)
        subprocess.run(["rm", "-rf", media], check=False)
    print(f"populated: {setup['large']['judgments']:,} judgments in {setup['large']['populate_s']:.0f} s, agreement "
          f"snapshots in {setup['large']['agreement_s']:.0f} s (not part of the export's time)")  # fmt: skip
    print("| judgments | export | formats | time | rate | output | peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (_, mode), r in results.items():
        what = "Concord export service" if mode == "concord" else "baseline: ORM objects → json.dumps"
        formats = "JSONL + CSV + Parquet, zipped, + card" if mode == "concord" else "JSONL only"
        print(f"| {r['n']:,} | {what} | {formats} | {r['seconds']:.1f} s | {r['n'] / r['seconds']:,.0f} /s | "
              f"{r['bytes'] / 2**20:.0f} MB | {r['peak_rss_mb']:.0f} MB |")  # fmt: skip
    for label in ("small", "large"):
        phases = results[(label, "concord")]["phases"]
        print(
            f"{label} Concord phases (s from start): " + ", ".join(f"{k or 'start'} {v:.1f}" for k, v in phases.items())
        )


if __name__ == "__main__":
    main()
