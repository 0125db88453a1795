"""Benchmark of the issue's scale bar: 10 million arena-like pairwise votes imported through the platform
(``evaluation.services.vote_import``: pyarrow reading, COPY into PostgreSQL) and ranked from the database
(``vote_results``: an SQL aggregation to pair tables, then Bradley–Terry with 100 bootstrap replicates, ties as
half-wins and by Davidson's model), against two baselines in the same run:

- the public arena code's fit: a logistic regression per bootstrap replicate on the votes' design matrix
  (``bench_pairwise_scale.arena_logistic_fit``), on a subsample of ``--baseline-rows`` votes and extrapolated
  linearly in rows and fits (its design matrix for 10M votes alone would be 4 GB);
- the platform's judgment import (``judgment_import``, items first), on ``--judgment-rows`` of the votes as one
  item and one judgment each, extrapolated linearly to all votes.

    nice .venv/bin/python tests/bench/bench_vote_import.py [--votes 10000000] [--systems 50] [--format csv]
                                                           # needs PostgreSQL on 127.0.0.1:5432

The votes file has a public arena dump's columns (model_a, model_b, winner, judge, tstamp, question_id). The
import and the ranking run in a child process on a fresh database, whose peak RSS is reported with the vote
table's size on disk (indexes included).
"""

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.csv as pa_csv  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pairwise_scale import arena_logistic_fit  # noqa: E402

ADMIN_URL = os.environ.get("BENCH_ADMIN_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
WINNERS = np.array(["model_b", "tie", "model_a", "tie (bothbad)"], dtype=object)


def arena_votes(n: int, k: int, seed: int = 0):
    """Codes of arena-like votes: log-strengths N(0, 0.8), pairs at random, Davidson ties (nu = 0.6), a fifth of
    the ties "both bad"; 200,000 judges, a prompt per two votes, one vote a second from April 2023."""
    rng = np.random.default_rng(seed)
    theta = np.sort(rng.normal(0, 0.8, k))[::-1]
    first = rng.integers(0, k, n, dtype=np.int32)
    second = (first + rng.integers(1, k, n, dtype=np.int32)) % k
    a, b = np.exp(theta[first]), np.exp(theta[second])
    u = rng.random(n) * (a + b + 0.6 * np.sqrt(a * b))
    outcome = np.where(u < a, 2, np.where(u < a + b, 0, 1)).astype(np.int8)
    outcome[(outcome == 1) & (rng.random(n) < 0.2)] = 3
    return first, second, outcome, rng.integers(0, 200_000, n), theta


def write_votes(path: Path, fmt: str, first, second, outcome, judges) -> None:
    """The file in chunks of a million votes (pyarrow's writers; a string per cell is built per chunk)."""
    chunk = 1_000_000
    writer = None
    names = np.array([f"model-{s:02d}" for s in range(max(first.max(), second.max()) + 1)], dtype=object)
    with open(path, "wb") as sink:
        for start in range(0, len(first), chunk):
            end = min(start + chunk, len(first))
            table = pa.table(
                {
                    "model_a": pa.array(names[first[start:end]], pa.string()),
                    "model_b": pa.array(names[second[start:end]], pa.string()),
                    "winner": pa.array(WINNERS[outcome[start:end]], pa.string()),
                    "judge": pc_format("arena_user_", judges[start:end]),
                    "tstamp": pa.array(1_680_000_000.0 + np.arange(start, end) + 0.25),
                    "question_id": pc_format("q", np.arange(start, end) // 2),
                }
            )
            if fmt == "parquet":
                writer = writer or pq.ParquetWriter(sink, table.schema)
                writer.write_table(table)
            elif fmt == "csv":
                pa_csv.write_csv(table, sink, pa_csv.WriteOptions(include_header=start == 0))
            else:
                buffer = io.StringIO()
                for row in table.to_pylist():
                    buffer.write(json.dumps(row) + "\n")
                sink.write(buffer.getvalue().encode())
        if writer:
            writer.close()


def pc_format(prefix: str, numbers: np.ndarray) -> pa.Array:
    import pyarrow.compute as pc

    return pc.binary_join_element_wise(prefix, pa.array(numbers).cast(pa.string()), "")


def run_child(path: str, fmt: str, resamples: int, judgment_rows: int) -> None:
    """In a child process: Django on the bench database, one pairwise project, the import and the ranking."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model

    from annotation.services import project_create
    from annotation.task_types import REGISTRY
    from annotation.task_types.facts import COMPARED
    from evaluation.services.vote_import import vote_import
    from evaluation.services.vote_results import vote_results

    lead = get_user_model().objects.create_user("bench-lead")
    task_type = next(slug for slug, t in REGISTRY.items() if t.results.kind == COMPARED)
    project = project_create(
        created_by=lead,
        name="bench",
        task_type=task_type,
        criteria=[{"name": "overall", "scale_min": 0, "scale_max": 2}],
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    cpu0, server0 = cpu_seconds(), server_cpu_seconds(backend)
    t0 = time.perf_counter()
    result = vote_import(project=project, path=path, fmt=fmt, by=lead, file_name=Path(path).name)
    t1 = time.perf_counter()
    cpu1, server1 = cpu_seconds(), server_cpu_seconds(backend)
    rss_import = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    (half,) = vote_results(
        project=project, ties="half", confidence=0.95, n_resamples=resamples, seed=1, weighting="inverse_probability"
    )
    t2 = time.perf_counter()
    (davidson,) = vote_results(
        project=project,
        ties="davidson",
        confidence=0.95,
        n_resamples=resamples,
        seed=1,
        weighting="inverse_probability",
    )
    t3 = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_total_relation_size('evaluation_vote'), pg_relation_size('evaluation_vote')")
        total_bytes, heap_bytes = cursor.fetchone()
    judgment = judgment_baseline(project_create, lead, task_type, path, fmt, judgment_rows) if judgment_rows else {}
    print(
        json.dumps(
            {
                "imported": result.imported,
                "systems": result.n_systems,
                "import_seconds": t1 - t0,
                "import_cpu": cpu1 - cpu0,
                "import_server_cpu": server1 - server0,
                "half_seconds": t2 - t1,
                "davidson_seconds": t3 - t2,
                "peak_rss_import_mib": rss_import,
                "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "table_bytes": total_bytes,
                "heap_bytes": heap_bytes,
                "strengths": {s.system: s.strength for s in davidson.systems},
                "mean_width": float(np.mean([s.strength_ci[1] - s.strength_ci[0] for s in half.systems])),
                "tie_parameter": davidson.bradley_terry.tie_parameter,
                **judgment,
            }
        )
    )


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def server_cpu_seconds(pid: int) -> float:
    """User + system CPU of a PostgreSQL backend on this machine, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def judgment_baseline(project_create, lead, task_type, path, fmt, rows: int) -> dict:
    """The first ``rows`` votes through the platform's judgment path: an item per vote, then its judgment."""
    from annotation.services import item_import, judgment_import

    votes = read_head(path, fmt, rows)
    project = project_create(
        created_by=lead,
        name="bench judgments",
        task_type=task_type,
        criteria=[{"name": "overall", "scale_min": 0, "scale_max": 2}],
    )
    items = "".join(
        json.dumps(
            {
                "external_id": f"v{k}",
                "input": v["question_id"],
                "outputs": [{"system": v["model_a"], "text": "a"}, {"system": v["model_b"], "text": "b"}],
            }
        )
        + "\n"
        for k, v in enumerate(votes)
    )
    winner = {"model_a": "model_a", "model_b": "model_b"}
    lines = "".join(
        json.dumps(
            {
                "item": f"v{k}",
                "rater": v["judge"],
                "criterion": "overall",
                "value": v[winner[v["winner"]]] if v["winner"] in winner else "tie",
            }
        )
        + "\n"
        for k, v in enumerate(votes)
    )
    t0 = time.perf_counter()
    item_import(project=project, stream=io.BytesIO(items.encode()), fmt="jsonl")
    t1 = time.perf_counter()
    judgment_import(project=project, stream=io.BytesIO(lines.encode()))
    t2 = time.perf_counter()
    return {"judgment_rows": rows, "judgment_item_seconds": t1 - t0, "judgment_seconds": t2 - t1}


def read_head(path, fmt, rows: int) -> list[dict]:
    if fmt == "parquet":
        return next(pq.ParquetFile(path).iter_batches(batch_size=rows)).to_pylist()
    if fmt == "csv":
        reader = pa_csv.open_csv(
            path,
            convert_options=pa_csv.ConvertOptions(
                column_types=dict.fromkeys(["model_a", "model_b", "winner", "judge", "question_id"], pa.string())
            ),
        )
        out = []
        for batch in reader:
            out.extend(batch.to_pylist())
            if len(out) >= rows:
                return out[:rows]
        return out
    with open(path) as lines:
        return [json.loads(next(lines)) for _ in range(rows)]


def psql(sql: str) -> None:
    subprocess.run(["psql", ADMIN_URL, "-qc", sql], check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--votes", type=int, default=10_000_000)
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--format", choices=["csv", "parquet", "jsonl"], default="csv")
    parser.add_argument("--resamples", type=int, default=100)
    parser.add_argument("--baseline-rows", type=int, default=200_000)
    parser.add_argument("--baseline-fits", type=int, default=3)
    parser.add_argument("--judgment-rows", type=int, default=5_000)
    args = parser.parse_args()

    first, second, outcome, judges, theta = arena_votes(args.votes, args.systems)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"votes.{args.format}"
        t0 = time.perf_counter()
        write_votes(path, args.format, first, second, outcome, judges)
        write_seconds = time.perf_counter() - t0
        size = path.stat().st_size
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
                [
                    sys.executable,
                    __file__,
                    "--run",
                    str(path),
                    args.format,
                    str(args.resamples),
                    str(args.judgment_rows),
                ],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=False,
            )
            if out.returncode:
                sys.exit(out.stderr[-4000:])
        finally:
            psql(f"DROP DATABASE {db}")
    r = json.loads(out.stdout.strip().splitlines()[-1])

    rng = np.random.default_rng(2)
    sub = rng.choice(args.votes, args.baseline_rows, replace=False)
    f, s, o = first[sub], second[sub], np.where(outcome[sub] == 3, 1, outcome[sub]).astype(float)
    t0 = time.perf_counter()
    arena_logistic_fit(f, s, o, args.systems)
    for _ in range(args.baseline_fits - 1):
        boot = rng.integers(0, len(f), len(f))
        arena_logistic_fit(f[boot], s[boot], o[boot], args.systems)
    per_fit = (time.perf_counter() - t0) / args.baseline_fits
    baseline_fit = per_fit * (args.votes / args.baseline_rows) * (args.resamples + 1)
    estimate = np.array([r["strengths"][f"model-{k:02d}"] for k in range(args.systems)])
    truth = theta - theta.mean()

    ours = r["import_seconds"] + r["half_seconds"]
    print(
        f"{r['imported']:,} votes between {r['systems']} systems, {args.format} file of {size / 2**20:,.0f} MiB; "
        f"load average at the end {os.getloadavg()[0]:.1f}\n"
    )
    print("| stage | time (s) |\n|---|---:|")
    print(f"| write the file (pyarrow, chunks of 1M votes) | {write_seconds:.1f} |")
    print(f"| import (`vote_import`: read, check, code, COPY) | {r['import_seconds']:.1f} |")
    print(
        f"| rank: SQL aggregation + Bradley–Terry (half-win ties) + {args.resamples} replicates | "
        f"{r['half_seconds']:.1f} |"
    )
    print(f"| rank again with Davidson ties + {args.resamples} replicates | {r['davidson_seconds']:.1f} |")
    print(f"| **ours: import + ranking with intervals** | **{ours:.1f}** |")
    print(
        f"| baseline: one arena logistic fit on {args.baseline_rows:,} votes (mean of {args.baseline_fits}) | "
        f"{per_fit:.2f} |"
    )
    print(f"| baseline extrapolated: {args.resamples + 1} fits on {args.votes:,} votes | {baseline_fit:,.0f} |")
    if "judgment_seconds" in r:
        per_vote = (r["judgment_item_seconds"] + r["judgment_seconds"]) / r["judgment_rows"]
        print(
            f"| baseline: the judgment path (items, then judgments) on {r['judgment_rows']:,} votes | "
            f"{r['judgment_item_seconds'] + r['judgment_seconds']:.1f} |"
        )
        print(f"| baseline extrapolated: the judgment path on {args.votes:,} votes | {per_vote * args.votes:,.0f} |")
    print()
    print(
        f"- peak RSS of the importing process: {r['peak_rss_import_mib']:.0f} MiB after the import, "
        f"{r['peak_rss_mib']:.0f} MiB at the end"
    )
    print(
        f"- vote table on disk: {r['table_bytes'] / 2**20:,.0f} MiB with its indexes "
        f"({r['heap_bytes'] / 2**20:,.0f} MiB of rows, {r['table_bytes'] / r['imported']:.0f} bytes a vote)"
    )
    print(
        f"- CPU of the import: {r['import_cpu']:.0f} s in Python (pyarrow's threads included), "
        f"{r['import_server_cpu']:.0f} s in its PostgreSQL backend (wall {r['import_seconds']:.0f} s)"
    )
    print(
        f"- largest |Davidson estimate − true log-strength|: {np.abs(estimate - truth).max():.4f}; mean 95% interval "
        f"width {r['mean_width']:.4f}; Davidson nu = {r['tie_parameter']:.3f}"
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--run"]:
        run_child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        main()
