"""Agreement recompute benchmark: 1,000,000 judgments (5 criteria × ~66,700 outputs × 3 raters, 50
raters, 10 subgroups, 26 weeks) on PostgreSQL → every weekly and cumulative snapshot, with the time
split into read / compute / write and the peak RSS of the process. The baseline in the same run is
the `krippendorff` package computing only the label-level alphas of the same windows. Then the lead's
dashboard is rendered from those snapshots through the whole Django stack (middleware, view, template;
no network), and its server time and number of queries are reported (bar: under 200 ms).

    .venv/bin/python tests/bench/bench_agreement_recompute.py [--judgments 1000000]

The database is populated once (``--database NAME`` keeps it, and reuses it when it exists); each ``--code``
checkout (default: this one) then recomputes its own copy of it (migrated by its own code, dropped at the end) in
its own process, ``--rounds`` times, interleaved, so two commits are compared under the same load; ``--dump DIR``
writes each checkout's stored rows (first round) for a byte-for-byte diff.

With ``--workers 1,2`` each checkout's recompute runs instead on that many real ``celery worker`` processes
(solo pool, one task at a time each, on ``--broker``), queued as the API queues it and timed from the enqueue
to the job's success, i.e. the committed swap of the snapshots; every checkout with every number of workers in
each round, and the sha256 of each configuration's stored rows:

    .venv/bin/python tests/bench/bench_agreement_recompute.py --database concord_bench_1m \
        --code ../base --code . --workers 1,2 --rounds 3
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
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADMIN_URL = os.environ.get("BENCH_ADMIN_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def populate(n_judgments: int, n_criteria=5, n_raters=50, n_subgroups=10, n_weeks=26, seed=1):
    """Writes users, a likert project, items, outputs and judgments with COPY; returns the project id."""
    import numpy as np
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.models import Item, Judgment, Output
    from annotation.services import project_create
    from core.bulk_insert import insert_rows, refresh_planner_statistics, reserve_ids

    rng = np.random.default_rng(seed)
    User = get_user_model()
    lead = User.objects.create_user("bench-lead")
    project = project_create(
        created_by=lead,
        name="bench",
        task_type="likert",
        criteria=[{"name": f"criterion{c}", "scale_min": 1, "scale_max": 5} for c in range(n_criteria)],
    )
    criteria = list(project.criteria.values_list("id", flat=True))
    raters = [User.objects.create_user(f"bench-rater-{k}").id for k in range(n_raters)]
    n_outputs = n_judgments // (3 * n_criteria)
    item_ids = reserve_ids(Item, n_outputs)
    now = timezone.now()
    insert_rows(
        Item,
        [
            "id",
            "project",
            "external_id",
            "input",
            "references",
            "subgroup",
            "meta",
            "n_target",
            "n_judged",
            "created_at",
        ],
        [(i, project.id, f"b{k}", "x", [], f"g{k % n_subgroups}", {}, 3, 3, now) for k, i in enumerate(item_ids)],
    )
    output_ids = reserve_ids(Output, n_outputs)
    insert_rows(
        Output,
        ["id", "item", "position", "system", "text"],
        [(o, i, 0, "sys", "y") for o, i in zip(output_ids, item_ids, strict=True)],
    )
    quality = rng.integers(1, 6, n_outputs)
    week_of = rng.integers(0, n_weeks, n_outputs)
    rows = []
    fields = [
        "project",
        "item",
        "output",
        "criterion",
        "rater",
        "value",
        "label",
        "shown_order",
        "source",
        "client_token",
        "submitted_at",
        "duration_ms",
        "is_current",
    ]
    from datetime import timedelta

    for k in range(n_outputs):
        when = now - timedelta(weeks=int(week_of[k]))
        for r in rng.choice(n_raters, 3, replace=False):
            for c in criteria:
                v = int(min(5, max(1, quality[k] + rng.choice((-1, 0, 0, 0, 1)))))
                rows.append(
                    (
                        project.id,
                        item_ids[k],
                        output_ids[k],
                        c,
                        raters[r],
                        float(v),
                        "",
                        [],
                        "import",
                        "",
                        when,
                        None,
                        True,
                    )
                )
        if len(rows) >= 100_000:
            insert_rows(Judgment, fields, rows)
            rows = []
    insert_rows(Judgment, fields, rows)
    refresh_planner_statistics(Item, Output, Judgment)  # as the import services do
    return project.id


def dashboard_timing(project, repeats: int = 20) -> dict:
    """The dashboard's render time (after one warm-up request) and its queries, as its lead gets it."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    client.force_login(get_user_model().objects.get(username="bench-lead"))
    url = f"/projects/{project.id}/agreement/"
    client.get(url)
    times = []
    for _ in range(repeats):
        with CaptureQueriesContext(connection) as queries:
            t = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - t)
        if response.status_code != 200:
            raise RuntimeError(f"dashboard answered {response.status_code}")
    times.sort()
    return {
        "dashboard_p50_ms": 1000 * times[len(times) // 2],
        "dashboard_max_ms": 1000 * times[-1],
        "dashboard_queries": len(queries),
        "dashboard_kb": len(response.content) / 1024,
    }


def populate_database(n_judgments: int) -> dict:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    t = time.perf_counter()
    populate(n_judgments)
    return {"populate_s": time.perf_counter() - t}


def dump_rows(project_id: int, path: str) -> None:
    """Every stored snapshot row of the project but its id and time, one sorted line each (floats by repr),
    so that the rows of two commits can be diffed byte for byte."""
    from agreement.models import AgreementSnapshot

    # named, sorted: the order of the model's fields differs between commits; the generation a row was written
    # under (issue #23) is not its content
    columns = sorted(
        f.attname for f in AgreementSnapshot._meta.fields if f.name not in ("id", "computed_at", "generation")
    )
    lines = sorted(
        "\t".join(json.dumps(v, sort_keys=True) if isinstance(v, dict | list) else repr(v) for v in row)
        for row in AgreementSnapshot.objects.filter(project_id=project_id).values_list(*columns).iterator()
    )
    Path(path).write_text("\n".join(lines) + "\n")


def replace_rows(project_id: int, rows: list[tuple]) -> None:
    """As the checkout's snapshot_compute_for_project stores its rows: under a new generation made current, the
    rows it replaced deleted after; before generations (issue #23), deleted and inserted in one transaction."""
    try:
        from agreement.services.generations import snapshot_generation_new, snapshot_rows_replace
    except ImportError:
        from django.db import transaction

        from agreement.engine.rows import SNAPSHOT_FIELDS
        from agreement.models import AgreementSnapshot
        from core.bulk_insert import insert_rows, refresh_planner_statistics

        with transaction.atomic():
            AgreementSnapshot.objects.filter(project_id=project_id).delete()
            insert_rows(AgreementSnapshot, SNAPSHOT_FIELDS, rows)
        refresh_planner_statistics(AgreementSnapshot)
        return
    generation = snapshot_generation_new(project_id=project_id)
    snapshot_rows_replace(project_id=project_id, generation=generation, rows=rows)


def run(dump: str | None) -> dict:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)  # this checkout's copy of a database populated by another
    import numpy as np

    from agreement.selectors.judgment_records import judgment_records_for_project
    from agreement.services.snapshots import snapshot_rows_compute
    from annotation.models import Project

    project = Project.objects.get(name="bench")
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    t0 = time.perf_counter()
    records = judgment_records_for_project(project)
    t1, c1 = time.perf_counter(), time.process_time()
    builder, _ = snapshot_rows_compute(project, records)
    t2, c2 = time.perf_counter(), time.process_time()
    replace_rows(project.id, builder.rows)
    t3 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if dump:
        dump_rows(project.id, dump)

    # baseline: the krippendorff package on the label-level (criterion) matrices of the same windows
    import krippendorff

    from agreement.stats import reliability_matrix

    order = np.argsort(records.week_index, kind="stable")
    week = records.week_index[order]
    crit, unit, rater, value = (
        records.criterion_index[order],
        records.unit[order],
        records.rater[order],
        records.value[order],
    )
    tb = time.perf_counter()
    n_alphas = 0
    for k in range(len(records.weeks)):
        hi = np.searchsorted(week, k, "right")
        lo = np.searchsorted(week, k, "left")
        for rows in (slice(lo, hi), slice(0, hi)):
            for c in range(len(records.criteria)):
                mask = crit[rows] == c
                m = reliability_matrix(unit[rows][mask], rater[rows][mask], value[rows][mask]).matrix
                krippendorff.alpha(m, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5])
                n_alphas += 1
    baseline_s = time.perf_counter() - tb
    return {
        "judgments": len(records),
        "weeks": len(records.weeks),
        "snapshots": len(builder.rows),
        "read_s": t1 - t0,
        "compute_s": t2 - t1,
        "compute_cpu_s": c2 - c1,
        "write_s": t3 - t2,
        "total_s": t3 - t0,
        "peak_rss_mb": peak,
        "rss_before_mb": rss_before,
        "baseline_krippendorff_label_alphas": n_alphas,
        "baseline_s": baseline_s,
        **dashboard_timing(project),
    }


def recompute_on_workers(n_workers: int, dump: str | None) -> dict:
    """Once ``n_workers`` Celery workers answer, queues a recompute as the API does and times it from the
    enqueue to the job's success (the swap committed), polling the job row."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)  # a database populated before a migration of this checkout
    from agreement.services import agreement_recompute_start
    from annotation.models import Project
    from config.celery_app import app
    from core.models import Job

    queue = app.conf.task_default_queue
    names = [f"{queue}-{k}@{os.uname().nodename}" for k in range(n_workers)]
    deadline = time.time() + 120
    while len(app.control.ping(destination=names, timeout=1.0)) < n_workers:
        if time.time() > deadline:
            raise RuntimeError(f"{n_workers} workers did not answer within 120 s")
    project = Project.objects.get(name="bench")
    t0 = time.perf_counter()
    job = agreement_recompute_start(project=project, user=None)
    while (state := Job.objects.values_list("state", flat=True).get(pk=job.pk)) not in ("success", "failure"):
        time.sleep(0.02)
    total = time.perf_counter() - t0
    job.refresh_from_db()
    if state == "failure":
        raise RuntimeError(f"the recompute failed: {job.error}")
    if dump:
        dump_rows(project.id, dump)
    return {"total_s": total, "snapshots": job.result["snapshots"], "judgments": job.result["judgments"]}


def worker_log(queue: str) -> Path:
    return Path(os.environ.get("TMPDIR", "/tmp")) / f"{queue}.log"


def task_times(queue: str) -> str:
    """Each task's time in the workers' log (Celery logs it at INFO), e.g. "batch 9.1 s, batch 10.2 s, swap 6.0 s"."""
    found = re.findall(
        r"Task agreement\.jobs\.agreement_(\w+)_job\[[^]]+\] succeeded in ([\d.]+)s", worker_log(queue).read_text()
    )
    return ", ".join(f"{name.removeprefix('recompute_') or 'recompute'} {float(t):.1f} s" for name, t in found)


def start_workers(code: Path, env: dict, n: int, queue: str) -> list[subprocess.Popen]:
    """``n`` worker processes of ``code``, one task at a time each (solo pool), on their own queue."""
    log = open(worker_log(queue), "ab")
    return [
        subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--loglevel", "INFO"]
            + ["--without-gossip", "--without-mingle", "--without-heartbeat", "-Q", queue, "-n", f"{queue}-{k}@%h"],
            cwd=code,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        for k in range(n)
    ]


def stop_workers(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        worker.terminate()
    for worker in workers:
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            worker.kill()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--judgments", type=int, default=1_000_000)
    parser.add_argument(
        "--code",
        action="append",
        help="a checkout whose recompute is measured (repeat to compare commits, interleaved); default: this one",
    )
    parser.add_argument("--rounds", type=int, default=1, help="recomputes per checkout, interleaved")
    parser.add_argument("--dump", help="a directory: each checkout's stored rows of its first round, one file each")
    parser.add_argument(
        "--database",
        help="a database name to keep: populated if it does not exist yet, reused (not dropped) if it does",
    )
    parser.add_argument(
        "--workers",
        help="comma-separated numbers of Celery worker processes (e.g. 1,2): each checkout's recompute is then timed "
        "from the API's enqueue to the committed swap, with CONCORD_RECOMPUTE_BATCHES set to the number of workers",
    )
    parser.add_argument(
        "--batches", type=int, help="with --workers: CONCORD_RECOMPUTE_BATCHES (default: the number of workers)"
    )
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/3", help="the Redis of --workers")
    parser.add_argument("--on-workers", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--populate", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--run", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--dump-to", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.populate or args.run or args.on_workers:
        sys.path.insert(0, os.getcwd())
        if args.on_workers:
            print(json.dumps(recompute_on_workers(args.on_workers, args.dump_to)))
        else:
            print(json.dumps(populate_database(args.judgments) if args.populate else run(args.dump_to)))
        return
    codes = [Path(c).resolve() for c in args.code or [ROOT]]
    db = args.database or f"concord_bench_{uuid.uuid4().hex[:8]}"
    exists = subprocess.run(
        ["psql", ADMIN_URL, "-Atc", f"SELECT 1 FROM pg_database WHERE datname = '{db}'"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not exists:
        subprocess.run(["psql", ADMIN_URL, "-qc", f"CREATE DATABASE {db}"], check=True, capture_output=True)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DJANGO_SECRET_KEY": "b" * 60,
        "DATABASE_URL": ADMIN_URL.rsplit("/", 1)[0] + "/" + db,
        "DJANGO_ALLOWED_HOSTS": "testserver",
    }
    env.pop("REDIS_URL", None)
    # each checkout recomputes its own copy of the populated database, migrated by its own code: commits whose
    # migrations differ cannot share one schema
    copies = [f"{db}_{c}" for c in range(len(codes))]

    def psql(sql: str) -> None:
        subprocess.run(["psql", ADMIN_URL, "-qc", sql], check=True, capture_output=True)

    def child(code: Path, *flags: str, extra_env: dict | None = None) -> dict:
        out = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), *flags, "--judgments", str(args.judgments)],
            env={**env, "PYTHONPATH": str(code), **(extra_env or {})},
            cwd=code,
            capture_output=True,
            text=True,
        )
        if out.returncode:
            sys.exit(out.stderr[-3000:])
        return json.loads(out.stdout.strip().splitlines()[-1])

    try:
        if exists:
            print(f"reusing the populated database {db}")
        else:
            print(f"populating ({args.judgments:,} judgments) … {child(codes[0], '--populate')['populate_s']:.0f} s")
        for copy in copies:
            psql(f"DROP DATABASE IF EXISTS {copy}")
            psql(f"CREATE DATABASE {copy} TEMPLATE {db}")
        urls = [ADMIN_URL.rsplit("/", 1)[0] + "/" + copy for copy in copies]
        if args.workers:
            on_workers(args, codes, urls, env, child)
            return
        for k in range(args.rounds):
            for n, code in enumerate(codes):
                dump = []
                if args.dump and k == 0:
                    Path(args.dump).mkdir(parents=True, exist_ok=True)
                    dump = ["--dump-to", str(Path(args.dump).resolve() / f"rows-{n}-{code.name}.tsv")]
                print(f"round {k + 1}, {code}  (load average {os.getloadavg()[0]:.1f})")
                report(child(code, "--run", *dump, extra_env={"DATABASE_URL": urls[n]}))
    finally:
        for copy in copies:
            psql(f"DROP DATABASE IF EXISTS {copy}")
        if not args.database:
            subprocess.run(["psql", ADMIN_URL, "-qc", f"DROP DATABASE {db}"], check=True, capture_output=True)


def on_workers(args, codes: list[Path], urls: list[str], env: dict, child) -> None:
    """Every checkout with every number of workers, round after round (interleaved), then the median times and
    the sha256 of each configuration's stored rows (first round)."""
    counts = [int(n) for n in args.workers.split(",")]
    times: dict[tuple[int, int], list[float]] = {}
    digests = {}
    dump_dir = Path(args.dump or Path(os.environ.get("TMPDIR", "/tmp")) / "bench-recompute-rows").resolve()
    dump_dir.mkdir(parents=True, exist_ok=True)
    for k in range(args.rounds):
        for c, code in enumerate(codes):
            for n in counts:
                queue = f"bench-{uuid.uuid4().hex[:8]}"
                worker_env = {
                    **env,
                    "DATABASE_URL": urls[c],
                    "PYTHONPATH": str(code),
                    "REDIS_URL": args.broker,
                    "CELERY_TASK_DEFAULT_QUEUE": queue,
                    "CONCORD_RECOMPUTE_BATCHES": str(args.batches or n),
                }
                dump = dump_dir / f"rows-{c}-{code.name}-{n}-workers.tsv"
                load = os.getloadavg()
                workers = start_workers(code, worker_env, n, queue)
                try:
                    flags = ["--on-workers", str(n)] + (["--dump-to", str(dump)] if k == 0 else [])
                    r = child(code, *flags, extra_env=worker_env)
                finally:
                    stop_workers(workers)
                times.setdefault((c, n), []).append(r["total_s"])
                if k == 0:
                    digests[(c, n)] = hashlib.sha256(dump.read_bytes()).hexdigest()
                print(
                    f"round {k + 1}, {code.name}, {n} worker(s): {r['total_s']:.1f} s for {r['snapshots']:,} snapshots "
                    f"of {r['judgments']:,} judgments (load average {load[0]:.1f} / {load[1]:.1f} before)\n"
                    f"    tasks: {task_times(queue)}",
                    flush=True,
                )
    print("median of the rounds, enqueue to committed swap:")
    for (c, n), values in times.items():
        print(
            f"  {codes[c].name}, {n} worker(s): {statistics.median(values):.1f} s "
            f"({', '.join(f'{v:.1f}' for v in values)})   rows sha256 {digests[(c, n)][:16]}"
        )
    print(f"  rows identical across all configurations: {len(set(digests.values())) == 1}")


def report(r: dict) -> None:
    print(f"{r['judgments']:,} judgments over {r['weeks']} weeks → {r['snapshots']:,} snapshots")
    print(
        f"  read {r['read_s']:.1f} s · compute {r['compute_s']:.1f} s (CPU {r['compute_cpu_s']:.1f} s) · "
        f"write {r['write_s']:.1f} s · total {r['total_s']:.1f} s   (bar: < 60 s)"
    )
    print(
        f"  peak RSS {r['peak_rss_mb']:.0f} MB (before the recompute: {r['rss_before_mb']:.0f} MB)   (bar: < 2048 MB)"
    )
    print(
        f"  baseline: the krippendorff package, label-level alphas only ({r['baseline_krippendorff_label_alphas']} "
        f"windows × criteria): {r['baseline_s']:.1f} s"
    )
    print(
        f"  dashboard from the stored snapshots: p50 {r['dashboard_p50_ms']:.0f} ms, slowest "
        f"{r['dashboard_max_ms']:.0f} ms of 20, {r['dashboard_queries']} queries, {r['dashboard_kb']:.0f} kB "
        f"(bar: < 200 ms server time)",
        flush=True,
    )


if __name__ == "__main__":
    main()
