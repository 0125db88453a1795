"""Soak: 64 simulated raters for a bounded time (default 5 minutes) against gunicorn + PostgreSQL +
Redis on loopback, doing next / judge / revise / flag with random think times, then a consistency
audit of the database.

Each rater loops: ``POST next`` (204 ends it), think, then mostly judges the screen (``client_token``;
now and then the same submission is sent twice, as a client retrying a lost answer would, and must be
acknowledged without a second row), sometimes flags it instead, and sometimes revises an earlier
judgment. A rater holding a screen at the deadline finishes it, so no lease is left open by design.
503 answers are retried after their Retry-After (the fault path); anything else unexpected is an error.

Audit: every acknowledged submission is stored exactly once (rows per client_token = answers per
screen); the current answer of every (item, rater) is the last one acknowledged; no item has more
raters than its target; ``n_judged`` / ``n_leased`` counters match the rows; no assignment is left
active (no leaked lease).

    .venv/bin/python tests/bench/bench_soak.py                  # 5 minutes, 64 raters
    .venv/bin/python tests/bench/bench_soak.py --seconds 60 --raters 64 --workers 4
    .venv/bin/python tests/bench/bench_soak.py --seconds 60 --outage-at 20 --outage-seconds 5

``--outage-at`` takes the bench database away mid-run, as a PostgreSQL restart would (new connections
refused, the server's connections terminated, on the bench database only), and brings it back after
``--outage-seconds``: the raters see 503s, retry, and the audit must still come out clean.
"""

import argparse
import http.client
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict

try:  # run as a script (tests/bench on sys.path) or imported by pytest's doctest collection
    from bench_rater_loop import ADMIN_URL, ROOT, free_port, percentile, seed, start_gunicorn
except ModuleNotFoundError:
    from tests.bench.bench_rater_loop import ADMIN_URL, ROOT, free_port, percentile, seed, start_gunicorn

OK = {"next": {200, 204}, "judge": {201}, "retry": {200, 201}, "revise": {200, 201}, "flag": {201}}


def call(port, method, path, token, body=None):
    """One request; 503s are retried after their Retry-After (returns status, body, seconds, n_503)."""
    n_503, started = 0, time.perf_counter()
    while True:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        headers = {"Authorization": f"Token {token}", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            raw = response.read()
        finally:
            conn.close()
        if response.status == 503 and n_503 < 20:
            n_503 += 1
            time.sleep(float(response.getheader("Retry-After") or 1))
            continue
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw[:200]
        return response.status, parsed, time.perf_counter() - started, n_503


def client_process(port, project_id, tokens, deadline, think, seed_value, queue):
    rng_seed = random.Random(seed_value)
    latencies, errors, acks, flags, n_503 = defaultdict(list), [], [], [], [0]
    lock = threading.Lock()

    def request(kind, method, path, token, body=None):
        status, payload, seconds, retried = call(port, method, path, token, body)
        with lock:
            latencies[kind].append(seconds)
            n_503[0] += retried
            if status not in OK[kind]:
                errors.append(f"{kind} {status} {str(payload)[:120]}")
        return status, payload

    def rater(token, rng):
        judged = []  # (assignment id, values) this rater may revise
        time.sleep(rng.uniform(0, think))
        while time.time() < deadline:
            status, screen = request("next", "POST", f"/api/v1/projects/{project_id}/next/", token)
            if status != 200:
                return
            time.sleep(rng.uniform(0, 2 * think))
            assignment = screen["assignment_id"]
            roll = rng.random()
            if roll < 0.04:
                status, _ = request(
                    "flag",
                    "POST",
                    f"/api/v1/assignments/{assignment}/flag/",
                    token,
                    {"reason": "cannot_judge", "comment": "soak"},
                )
                if status == 201:
                    flags.append(assignment)
                continue
            value = rng.randint(1, 5)
            values = [
                {"criterion": c["name"], "position": o["position"], "value": value}
                for c in screen["criteria"]
                for o in screen["item"]["outputs"]
            ]
            body = {"values": values, "client_token": uuid.uuid4().hex, "duration_ms": 1000}
            path = f"/api/v1/assignments/{assignment}/judgment/"
            status, _ = request("judge", "POST", path, token, body)
            if status != 201:
                continue
            acks.append((assignment, body["client_token"], value, len(values)))
            judged.append((assignment, values))
            if roll < 0.10:  # the answer "got lost": the client sends the same submission again
                request("retry", "POST", path, token, body)
            if 0.10 <= roll < 0.18 and judged:  # go back and change an earlier answer
                old_assignment, old_values = rng.choice(judged)
                new_value = rng.randint(1, 5)
                revised = {"values": [{**v, "value": new_value} for v in old_values], "client_token": uuid.uuid4().hex}
                status, _ = request("revise", "POST", f"/api/v1/assignments/{old_assignment}/judgment/", token, revised)
                if status in (200, 201):
                    acks.append((old_assignment, revised["client_token"], new_value, len(old_values)))

    threads = [threading.Thread(target=rater, args=(t, random.Random(rng_seed.random()))) for t in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put({"latencies": dict(latencies), "errors": errors, "acks": acks, "flags": flags, "n_503": n_503[0]})


def audit(project_id: int, acks: list, flags: list) -> dict:
    from django.db.models import Count, Q

    from annotation.models import Assignment, Item, Judgment

    rows_by_token = Counter(
        Judgment.objects.filter(project_id=project_id).exclude(client_token="").values_list("client_token", flat=True)
    )
    not_once = sum(1 for _, token, _, n in acks if rows_by_token.get(token, 0) != n)
    unacknowledged = len(set(rows_by_token) - {token for _, token, _, _ in acks})
    last = {}
    for assignment, _, value, _ in acks:  # acks are in each rater's order; one rater owns an assignment
        last[assignment] = value
    current = defaultdict(set)
    for assignment, value in Judgment.objects.filter(project_id=project_id, is_current=True).values_list(
        "assignment_id", "value"
    ):
        current[assignment].add(value)
    wrong_current = sum(1 for a, v in last.items() if current.get(a) != {float(v)})
    items = Item.objects.filter(project_id=project_id).annotate(
        raters=Count("judgments__rater", filter=Q(judgments__is_current=True), distinct=True),
        active=Count("assignments", filter=Q(assignments__status="active"), distinct=True),
    )
    over = sum(1 for i in items if i.raters > i.n_target)
    bad_counters = sum(1 for i in items if i.n_judged != i.raters or i.n_leased != i.active)
    return {
        "acknowledged": len(acks),
        "stored_not_exactly_once": not_once,
        "unacknowledged_rows": unacknowledged,
        "current_not_last_acknowledged": wrong_current,
        "over_target": over,
        "counter_mismatch": bad_counters,
        "leases_left_active": Assignment.objects.filter(project_id=project_id, status="active").count(),
        "flags": len(flags),
        "items_done": sum(1 for i in items if i.raters >= i.n_target),
    }


def database_outage(name: str, at: float, seconds: float) -> None:
    import psycopg

    time.sleep(at)
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        try:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", [name])
            print(f"-- database cut at {at:g} s for {seconds:g} s", flush=True)
            time.sleep(seconds)
        finally:
            admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        print("-- database back", flush=True)


def start_redis():
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="soak-redis-")
    subprocess.run(
        [
            shutil.which("redis-server") or "redis-server",
            "--port",
            str(port),
            "--daemonize",
            "yes",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            workdir,
            "--pidfile",
            f"{workdir}/redis.pid",
        ],
        check=True,
        capture_output=True,
    )
    return port, workdir


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="how long the raters work (default 5 min)")
    parser.add_argument("--raters", type=int, default=64)
    parser.add_argument(
        "--think", type=float, default=0.5, help="mean think time in seconds (uniform 0..2×; default %(default)s)"
    )
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument("--items", type=int, default=20000, help="items (2 raters each)")
    parser.add_argument("--client-processes", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--outage-at", type=float, default=None, help="seconds into the run to cut the database")
    parser.add_argument("--outage-seconds", type=float, default=5.0)
    args = parser.parse_args()

    import psycopg

    name = "concord_bench_soak_" + uuid.uuid4().hex[:8]
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    db_url = ADMIN_URL.rsplit("/", 1)[0] + "/" + name
    redis_port, redis_dir = start_redis()
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    env = dict(
        os.environ,
        DATABASE_URL=db_url,
        DJANGO_SETTINGS_MODULE="config.settings.base",
        DJANGO_SECRET_KEY="soak-" + uuid.uuid4().hex,
        DJANGO_DEBUG="false",
        REDIS_URL=redis_url,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_LOG_LEVEL="WARNING",
        CONCORD_AUTH_THROTTLE_RATE="10000/min",
    )
    env.pop("CELERY_BROKER_URL", None)
    os.environ.update(
        {
            k: env[k]
            for k in (
                "DATABASE_URL",
                "DJANGO_SECRET_KEY",
                "DJANGO_DEBUG",
                "REDIS_URL",
                "DJANGO_ALLOWED_HOSTS",
                "DJANGO_LOG_LEVEL",
                "DJANGO_SETTINGS_MODULE",
            )
        }
    )
    sys.path.insert(0, str(ROOT))
    server = None
    try:
        print(f"seeding {args.items} items, {args.raters} raters on {name}; Redis on port {redis_port} ...", flush=True)
        (project_id,), tokens = seed(1, args.items, args.raters)
        from django.db import connections

        connections.close_all()
        server, port = start_gunicorn(env, args.workers, tokens[0], warm_calls=4 * args.workers)
        print(
            f"gunicorn {args.workers} sync workers; {args.raters} raters in {args.client_processes} client "
            f"processes; think 0-{2 * args.think:g} s; {args.seconds:g} s; {os.cpu_count()} cores",
            flush=True,
        )
        deadline = time.time() + args.seconds
        queue = multiprocessing.Queue()
        chunks = [tokens[i :: args.client_processes] for i in range(args.client_processes)]
        t0 = time.time()
        procs = [
            multiprocessing.Process(
                target=client_process, args=(port, project_id, chunk, deadline, args.think, args.seed + i, queue)
            )
            for i, chunk in enumerate(chunks)
        ]
        for p in procs:
            p.start()
        if args.outage_at is not None:
            threading.Thread(
                target=database_outage, args=(name, args.outage_at, args.outage_seconds), daemon=True
            ).start()
        parts = [queue.get(timeout=args.seconds + 600) for _ in procs]
        for p in procs:
            p.join()
        elapsed = time.time() - t0
        latencies = defaultdict(list)
        for part in parts:
            for kind, values in part["latencies"].items():
                latencies[kind].extend(values)
        errors = [e for part in parts for e in part["errors"]]
        acks = [a for part in parts for a in part["acks"]]
        flags = [f for part in parts for f in part["flags"]]
        n_requests = sum(len(v) for v in latencies.values())
        n_judgments = len(latencies["judge"])
        print(
            f"\n{elapsed:.0f} s: {n_requests} requests ({n_requests / elapsed:.1f}/s), {n_judgments} judgments "
            f"({n_judgments / elapsed:.1f}/s), {len(latencies['revise'])} revisions, "
            f"{len(latencies['retry'])} duplicate sends, {len(flags)} flags; "
            f"{sum(p['n_503'] for p in parts)} answers 503 (retried); {len(errors)} errors"
        )
        print("\n| request | n | p50 ms | p95 ms | p99 ms |\n| --- | --- | --- | --- | --- |")
        for kind in ("next", "judge", "retry", "revise", "flag"):
            values = sorted(latencies[kind])
            print(
                f"| {kind} | {len(values)} | "
                + " | ".join(f"{percentile(values, q) * 1000:.1f}" for q in (0.5, 0.95, 0.99))
                + " |"
            )
        if errors:
            print("first errors:", Counter(errors).most_common(5))
        result = audit(project_id, acks, flags)
        print("\naudit:", json.dumps(result))
        clean = not errors and all(
            result[k] == 0
            for k in (
                "stored_not_exactly_once",
                "unacknowledged_rows",
                "current_not_last_acknowledged",
                "over_target",
                "counter_mismatch",
                "leases_left_active",
            )
        )
        print(f"consistent and error-free: {'yes' if clean else 'NO'}")
        return 0 if clean else 1
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
        from django.db import connections

        connections.close_all()
        subprocess.run(["redis-cli", "-p", str(redis_port), "shutdown", "nosave"], capture_output=True)
        shutil.rmtree(redis_dir, ignore_errors=True)
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


if __name__ == "__main__":
    sys.exit(main())
