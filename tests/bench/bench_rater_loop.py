"""Rater-loop benchmark: ``POST next`` + ``POST judgment`` under gunicorn on PostgreSQL, with 1, 8 and 32
concurrent raters and no pause (saturation), then 32 raters pausing 1 s between items. The load client
runs on the same machine (two client processes of threads, token auth, a fresh connection per request
as a sync gunicorn worker closes it anyway). Each phase runs for a fixed time on its own project.

Reports per phase: judgments/s, p50/p95/p99 of one loop turn (next + judgment) and of single requests,
server CPU per judgment (gunicorn master and workers + the PostgreSQL backends serving the bench
database, from /proc), errors, and checks the database afterwards: no item over its target, no
duplicated or lost judgment.

    .venv/bin/python tests/bench/bench_rater_loop.py            # needs PostgreSQL on 127.0.0.1:5432
    .venv/bin/python tests/bench/bench_rater_loop.py --seconds 10 --workers 4
"""

import argparse
import http.client
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADMIN_URL = os.environ.get("BENCH_ADMIN_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
CLK_TCK = os.sysconf("SC_CLK_TCK")
PHASES = [(1, 0.0), (8, 0.0), (32, 0.0), (32, 1.0)]  # (raters, pause between items in seconds)


def cpu_by_pid(pids) -> dict[int, float]:
    """CPU seconds (user + system) of each process still running."""
    out = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        out[pid] = (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime (fields 14, 15 of proc(5))
    return out


def cpu_between(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU used between two readings by the processes alive at the second (new ones count whole)."""
    return sum(t - before.get(pid, 0.0) for pid, t in after.items())


class BackendCpu(threading.Thread):
    """Samples the CPU of the PostgreSQL backends serving a database every 0.2 s, so a backend that
    exits mid-phase (a web worker renewing its connection) still counts up to its last sample."""

    def __init__(self, database: str):
        super().__init__(daemon=True)
        import psycopg

        self.admin = psycopg.connect(ADMIN_URL, autocommit=True)
        self.database, self.first, self.last, self.running = database, {}, {}, True
        self.sample()

    def sample(self):
        initial = not self.last  # backends alive at the start count from there; later ones from zero
        for pid, t in cpu_by_pid(backends_of(self.admin, self.database)).items():
            self.first.setdefault(pid, t if initial else 0.0)
            self.last[pid] = t

    def run(self):
        while self.running:
            time.sleep(0.2)
            self.sample()

    def stop(self) -> float:
        self.running = False
        self.join()
        self.sample()
        self.admin.close()
        return sum(t - self.first[pid] for pid, t in self.last.items())


def backends_of(admin, database: str) -> list[int]:
    """PostgreSQL backends of clients of ``database`` (the web workers keep theirs open); autovacuum,
    which the load also causes but which runs on its own schedule, is left out."""
    return [
        pid
        for (pid,) in admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s "
            "AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
            [database],
        ).fetchall()
    ]


def children_of(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(stat.parent.name))
        except (FileNotFoundError, IndexError, ValueError):
            pass
    return out


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(round(q * (len(sorted_values) - 1))))]


# --- load client (runs in child processes) ---------------------------------------------------------------


def call(port, method, path, token, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Token {token}", "Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    response = conn.getresponse()
    raw = response.read()
    conn.close()
    return response.status, (json.loads(raw) if raw else None)


def client_process(port, project_id, tokens, pause, deadline, queue):
    turns, requests, errors, acknowledged = [], [], [], []

    def rater(token):
        if pause:  # raters start at random moments, as people do, rather than in one synchronised burst
            time.sleep(random.uniform(0, pause))
        while time.time() < deadline:
            t0 = time.perf_counter()
            status, screen = call(port, "POST", f"/api/v1/projects/{project_id}/next/", token)
            t1 = time.perf_counter()
            if status == 204:
                return
            if status != 200:
                errors.append(f"next {status} {str(screen)[:100]}")
                return
            values = [
                {"criterion": c["name"], "position": o["position"], "value": 3}
                for c in screen["criteria"]
                for o in screen["item"]["outputs"]
            ]
            status, body = call(
                port,
                "POST",
                f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
                token,
                {"values": values, "client_token": uuid.uuid4().hex, "duration_ms": 1000},
            )
            t2 = time.perf_counter()
            if status != 201:
                errors.append(f"judgment {status} {str(body)[:100]}")
                return
            turns.append(t2 - t0)
            requests.extend((t1 - t0, t2 - t1))
            acknowledged.append(screen["assignment_id"])
            if pause:
                time.sleep(pause)

    threads = [threading.Thread(target=rater, args=(t,)) for t in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put({"turns": turns, "requests": requests, "errors": errors, "acknowledged": acknowledged})


# --- set-up and checks (Django in this process, on the bench database) -------------------------------------


def seed(n_projects: int, n_items: int, n_raters: int, allocation: dict | None = None):
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from annotation.services import item_import, membership_set, project_create

    call_command("migrate", verbosity=0)
    User = get_user_model()
    lead = User.objects.create_user("bench-lead")
    raters = [User.objects.create_user(f"bench-rater-{i}") for i in range(n_raters)]
    tokens = [Token.objects.create(user=u).key for u in raters]
    projects = []
    for p in range(n_projects):
        project = project_create(
            created_by=lead,
            name=f"bench {p}",
            task_type="likert",
            raters_per_item=2,
            double_annotation_share=1.0,
            criteria=[{"name": "fluency", "scale_min": 1, "scale_max": 5}],
            **({"allocation": allocation} if allocation else {}),
        )
        lines = "".join(
            json.dumps(
                {
                    "external_id": f"doc{i}",
                    "input": f"source text {i} " * 20,
                    "outputs": [{"system": "bart", "text": f"summary {i} " * 12}],
                }
            )
            + "\n"
            for i in range(n_items)
        ).encode()
        import io

        item_import(project=project, stream=io.BytesIO(lines), fmt="jsonl")
        for u in raters:
            membership_set(project=project, username=u.username, role="rater")
        projects.append(project.pk)
    from django.db import connection

    with connection.cursor() as cursor:  # fresh tables: give the planner the statistics a live site has
        cursor.execute("ANALYZE")
    return projects, tokens


def check(project_id: int, acknowledged: list[int]) -> dict:
    from django.db.models import Count

    from annotation.models import Assignment, Item, Judgment

    per_item = (
        Judgment.objects.filter(project_id=project_id, is_current=True)
        .values("item_id")
        .annotate(n=Count("rater_id", distinct=True), rows=Count("id"))
    )
    over = sum(1 for row in per_item if row["n"] > 2)
    doubled = sum(row["rows"] - row["n"] for row in per_item)
    stored = Judgment.objects.filter(project_id=project_id).count()
    leased_wrong = (
        Item.objects.filter(project_id=project_id, n_leased__gt=0).count()
        - Assignment.objects.filter(project_id=project_id, status="active").values("item_id").distinct().count()
    )
    return {
        "over_assigned": over,
        "doubled": doubled,
        "stored": stored,
        "acknowledged": len(acknowledged),
        "lost": len(acknowledged) - stored,
        "lease_counter_mismatch": leased_wrong,
    }


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_gunicorn(env: dict, workers: int, token: str, *, warm_calls: int) -> tuple[subprocess.Popen, int]:
    """gunicorn on a free loopback port, each worker warmed up (imports, URLconf, first connection)
    by `warm_calls` requests before anything is timed."""
    port = free_port()
    server = subprocess.Popen(
        [
            str(ROOT / ".venv/bin/gunicorn"),
            "config.wsgi:application",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            str(workers),
            "--log-level",
            "warning",
            "--timeout",
            "120",
        ],  # a saturated machine can take the default 30 s to boot one
        cwd=ROOT,
        env=env,
    )
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        for _ in range(warm_calls):
            for attempt in range(5):  # the first call of each worker imports the project: slow when the machine is busy
                try:
                    call(port, "GET", "/api/v1/projects/", token)
                    break
                except (TimeoutError, ConnectionError):
                    if attempt == 4:
                        raise
    except BaseException:
        server.terminate()  # not left running (and holding the caller's output) when the warm-up fails
        server.wait(30)
        raise
    return server, port


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument("--items", type=int, default=6000, help="items per phase's project (2 raters each)")
    parser.add_argument("--client-processes", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the bench database (to inspect plans)")
    parser.add_argument(
        "--allocation",
        action="store_true",
        help="give each project a quota per rater (never reached) and a design of as many places "
        "as the phase has raters, so every lease goes through both",
    )
    parser.add_argument(
        "--phases",
        default=",".join(f"{r}:{p:g}" for r, p in PHASES),
        help="raters:pause pairs, comma-separated (default: %(default)s)",
    )
    args = parser.parse_args()
    phases = [(int(r), float(p)) for r, p in (x.split(":") for x in args.phases.split(","))]

    import psycopg

    name = "concord_bench_rater_" + uuid.uuid4().hex[:8]
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    db_url = ADMIN_URL.rsplit("/", 1)[0] + "/" + name
    env = dict(
        os.environ,
        DATABASE_URL=db_url,
        DJANGO_SETTINGS_MODULE="config.settings.base",
        DJANGO_SECRET_KEY="bench-" + uuid.uuid4().hex,
        DJANGO_DEBUG="false",
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_LOG_LEVEL="WARNING",
    )
    env.pop("REDIS_URL", None)
    env.pop("CELERY_BROKER_URL", None)
    os.environ.update(
        {
            k: env[k]
            for k in ("DATABASE_URL", "DJANGO_SECRET_KEY", "DJANGO_DEBUG", "DJANGO_ALLOWED_HOSTS", "DJANGO_LOG_LEVEL")
        }
    )
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
    sys.path.insert(0, str(ROOT))
    server = None
    admin = psycopg.connect(ADMIN_URL, autocommit=True)
    try:
        print(f"seeding {len(phases)} projects × {args.items} items on {name} ...", flush=True)
        projects, tokens = seed(
            len(phases),
            args.items,
            max(r for r, _ in phases),
            allocation={"planned_raters": max(r for r, _ in phases), "max_screens_per_rater": args.items}
            if args.allocation
            else None,
        )
        from django.db import connections

        connections.close_all()
        server, port = start_gunicorn(env, args.workers, tokens[0], warm_calls=8 * args.workers)
        workers = children_of(server.pid)
        print(
            f"gunicorn: {args.workers} sync workers; {args.client_processes} client processes; "
            f"{args.seconds:g} s per phase; {os.cpu_count()} cores\n",
            flush=True,
        )
        print(
            "| raters | pause | judgments/s | turn p50 / p95 / p99 (ms) | request p50 / p95 / p99 (ms) "
            "| server CPU / judgment, ms (gunicorn + PostgreSQL) | errors | over-assigned / doubled / lost |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        results = []
        for (n_raters, pause), project_id in zip(phases, projects, strict=True):
            with psycopg.connect(db_url, autocommit=True) as db:  # as autovacuum would have, on a live site
                db.execute("ANALYZE")
            server_pids = [server.pid, *workers]
            web0, pg_sampler = cpu_by_pid(server_pids), BackendCpu(name)
            pg_sampler.start()
            deadline = time.time() + args.seconds
            queue = multiprocessing.Queue()
            n_proc = min(args.client_processes, n_raters)
            chunks = [tokens[:n_raters][i::n_proc] for i in range(n_proc)]
            t0 = time.time()
            procs = [
                multiprocessing.Process(target=client_process, args=(port, project_id, chunk, pause, deadline, queue))
                for chunk in chunks
            ]
            for p in procs:
                p.start()
            parts = [queue.get(timeout=args.seconds + 120) for _ in procs]
            for p in procs:
                p.join()
            elapsed = time.time() - t0
            web = cpu_between(web0, cpu_by_pid(server_pids))
            pg = pg_sampler.stop()
            cpu = web + pg
            turns = sorted(x for part in parts for x in part["turns"])
            requests = sorted(x for part in parts for x in part["requests"])
            errors = [e for part in parts for e in part["errors"]]
            acknowledged = [a for part in parts for a in part["acknowledged"]]
            db = check(project_id, acknowledged)
            rate = len(turns) / elapsed
            ms = lambda values: " / ".join(f"{percentile(values, q) * 1000:.0f}" for q in (0.5, 0.95, 0.99))  # noqa: E731
            print(
                f"| {n_raters} | {pause:g} s | {rate:.1f} | {ms(turns)} | {ms(requests)} | "
                f"{cpu / max(1, len(turns)) * 1000:.1f} ({web / max(1, len(turns)) * 1000:.1f} + "
                f"{pg / max(1, len(turns)) * 1000:.1f}) | {len(errors)} | "
                f"{db['over_assigned']} / {db['doubled']} / {db['lost']} |",
                flush=True,
            )
            if errors:
                print("   first errors:", errors[:3])
            results.append(
                {
                    "raters": n_raters,
                    "pause": pause,
                    "rate": rate,
                    "turns": len(turns),
                    "p95_turn_ms": percentile(turns, 0.95) * 1000,
                    "errors": len(errors),
                    **db,
                }
            )
        clean = all(r["errors"] == r["over_assigned"] == r["doubled"] == r["lost"] == 0 for r in results)
        for r in results:
            if r["raters"] == 32 and r["pause"] == 0:
                print(
                    f"\nbar 32 raters no pause >= 85 judgments/s: {r['rate']:.1f} "
                    f"({'met' if r['rate'] >= 85 else 'NOT met'})"
                )
            if r["raters"] == 32 and r["pause"] > 0:
                print(
                    f"bar 32 raters pausing 1 s, p95 next+judgment < 50 ms: {r['p95_turn_ms']:.0f} ms "
                    f"({'met' if r['p95_turn_ms'] < 50 else 'NOT met'})"
                )
        print(f"no error, no over-assignment, nothing lost or doubled: {'yes' if clean else 'NO'}")
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
        from django.db import connections

        connections.close_all()
        if args.keep:
            print(f"kept database {name}")
        else:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()


if __name__ == "__main__":
    main()
