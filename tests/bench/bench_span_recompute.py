"""Agreement recompute of an error-span project on PostgreSQL: an ESA project of 2,000 outputs × 3 of 10 raters
(about 2 error spans per rating, raters who partly agree on where the errors are), 4 subgroups, 8 weeks → every
weekly and cumulative snapshot, span statistics included, and the lead's dashboard rendered from them. The baseline
in the same run is the same project without them (its plan's ``spans`` removed): what the span statistics add to a
recompute and to the page.

    .venv/bin/python tests/bench/bench_span_recompute.py [--outputs 2000]
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADMIN_URL = os.environ.get("BENCH_ADMIN_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def populate(n_outputs: int, n_raters=10, n_subgroups=4, n_weeks=8, seed=1) -> int:
    """Writes users, an ESA project, items, outputs, judgments and error spans with COPY; returns the project id."""
    import numpy as np
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.models import ErrorSpan, Item, Judgment, Output
    from annotation.services import project_create
    from core.bulk_insert import insert_rows, refresh_planner_statistics, reserve_ids

    rng = np.random.default_rng(seed)
    users = get_user_model()
    lead = users.objects.create_user("bench-lead")
    project = project_create(created_by=lead, name="bench", task_type="esa", criteria=[{"name": "quality"}])
    criterion = project.criteria.get().id
    raters = [users.objects.create_user(f"bench-rater-{k}").id for k in range(n_raters)]
    now = timezone.now()
    item_ids = reserve_ids(Item, n_outputs)
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
        [(i, project.id, f"b{k}", "source", [], f"g{k % n_subgroups}", {}, 3, 3, now) for k, i in enumerate(item_ids)],
    )
    output_ids = reserve_ids(Output, n_outputs)
    lengths = rng.integers(40, 220, n_outputs)
    insert_rows(
        Output,
        ["id", "item", "position", "system", "text"],
        [(o, i, 0, "sys", "x" * int(n)) for o, i, n in zip(output_ids, item_ids, lengths, strict=True)],
    )
    judgment_ids = reserve_ids(Judgment, 3 * n_outputs)
    judgments, spans = [], []
    for k in range(n_outputs):
        when = now - timedelta(weeks=int(rng.integers(0, n_weeks)))
        length = int(lengths[k])
        truth = [tuple(sorted(int(x) for x in rng.integers(0, length, 2))) for _ in range(3)]
        for j, r in enumerate(rng.choice(n_raters, 3, replace=False)):
            judgment = judgment_ids[3 * k + j]
            judgments.append(
                (
                    judgment,
                    project.id,
                    item_ids[k],
                    output_ids[k],
                    criterion,
                    raters[r],
                    float(rng.integers(0, 101)),
                    "",
                    [],
                    "import",
                    "",
                    when,
                    None,
                    True,
                )
            )
            for _ in range(rng.poisson(2)):
                a, b = truth[rng.integers(0, 3)] if rng.random() < 0.6 else sorted(rng.integers(0, length, 2))
                spans.append(
                    (
                        judgment,
                        "target",
                        int(a),
                        int(max(a + 1, b)),
                        ("minor", "major")[rng.random() < 0.3],
                        "",
                        "added",
                    )
                )
    insert_rows(
        Judgment,
        [
            "id",
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
        ],
        judgments,
    )
    insert_rows(ErrorSpan, ["judgment", "side", "start", "end", "severity", "category", "origin"], spans)
    refresh_planner_statistics(Item, Output, Judgment, ErrorSpan)
    return project.id


def recompute(project) -> dict:
    from django.db import transaction

    from agreement.engine.rows import SNAPSHOT_FIELDS
    from agreement.models import AgreementSnapshot
    from agreement.selectors.judgment_records import judgment_records_for_project
    from agreement.services.snapshots import snapshot_rows_compute
    from core.bulk_insert import insert_rows, refresh_planner_statistics

    t0 = time.perf_counter()
    records = judgment_records_for_project(project)
    t1, c1 = time.perf_counter(), time.process_time()
    builder, _ = snapshot_rows_compute(project, records)
    t2, c2 = time.perf_counter(), time.process_time()
    with transaction.atomic():
        AgreementSnapshot.objects.filter(project=project).delete()
        insert_rows(AgreementSnapshot, SNAPSHOT_FIELDS, builder.rows)
    refresh_planner_statistics(AgreementSnapshot)
    t3 = time.perf_counter()
    return {
        "judgments": len(records),
        "weeks": len(records.weeks),
        "snapshots": len(builder.rows),
        "read_s": t1 - t0,
        "compute_s": t2 - t1,
        "compute_cpu_s": c2 - c1,
        "write_s": t3 - t2,
        "total_s": t3 - t0,
    }


def run(n_outputs: int) -> dict:
    import django

    django.setup()
    from dataclasses import replace

    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from annotation.models import ErrorSpan, Project
    from annotation.task_types import REGISTRY
    from tests.bench.bench_agreement_recompute import dashboard_timing

    t = time.perf_counter()
    project = Project.objects.get(pk=populate(n_outputs))
    populate_s = time.perf_counter() - t
    esa = REGISTRY["esa"]
    plan = esa.agreement
    esa.agreement = replace(plan, spans=None)
    baseline = {**recompute(project), **dashboard_timing(project)}
    esa.agreement = plan
    full = {**recompute(project), **dashboard_timing(project)}
    return {
        "populate_s": populate_s,
        "spans": ErrorSpan.objects.filter(judgment__project=project).count(),
        "baseline": baseline,
        "full": full,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--outputs", type=int, default=2_000)
    parser.add_argument("--run", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        sys.path.insert(0, str(ROOT))
        print(json.dumps(run(args.outputs)))
        return
    db = f"concord_bench_{uuid.uuid4().hex[:8]}"
    subprocess.run(["psql", ADMIN_URL, "-qc", f"CREATE DATABASE {db}"], check=True, capture_output=True)
    try:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "DJANGO_SECRET_KEY": "b" * 60,
            "DATABASE_URL": ADMIN_URL.rsplit("/", 1)[0] + "/" + db,
            "DJANGO_ALLOWED_HOSTS": "testserver",
        }
        env.pop("REDIS_URL", None)
        out = subprocess.run(
            [sys.executable, __file__, "--run", "--outputs", str(args.outputs)],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if out.returncode:
            sys.exit(out.stderr[-3000:])
    finally:
        subprocess.run(["psql", ADMIN_URL, "-qc", f"DROP DATABASE {db}"], check=True, capture_output=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    b, f = r["baseline"], r["full"]
    print(f"{f['judgments']:,} ESA judgments with {r['spans']:,} error spans over {f['weeks']} weeks")
    print("| recompute | snapshots | read | compute | write | total | dashboard p50 / slowest (queries) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, x in (("baseline: the scores' statistics only (plan without spans)", b), ("with span agreement", f)):
        print(
            f"| {name} | {x['snapshots']:,} | {x['read_s']:.1f} s | {x['compute_s']:.1f} s (CPU "
            f"{x['compute_cpu_s']:.1f} s) | {x['write_s']:.1f} s | {x['total_s']:.1f} s | "
            f"{x['dashboard_p50_ms']:.0f} / {x['dashboard_max_ms']:.0f} ms ({x['dashboard_queries']}) |"
        )
    print(f"peak RSS {r['peak_rss_mb']:.0f} MB; populating took {r['populate_s']:.0f} s")


if __name__ == "__main__":
    main()
