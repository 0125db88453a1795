"""Benchmark of the error-span path: 100k MQM error rows in WMT's marked TSV layout parsed
(annotation.error_span_formats), scored (evaluation.stats.mqm_scores) and their span agreement computed
with a bootstrap over segments (agreement.stats.span_agreement), against baselines in the same run:
pandas groupby for the scores, and a per-character Python loop for the agreement tables.

With ``--platform`` the same file also goes through the platform on PostgreSQL, in a child process on a fresh
database: the public judgment import (the TSV as uploaded: checked, then COPY of judgments and spans), the
results (``results_compute``: MQM per segment, system and category, WMT's ranking), and the span agreement
recomputed from the stored spans (``span_ratings`` → ``span_agreement``), each with its own peak RSS (Linux); the
library stages above, on the same file in the same run, are its baseline (the same work without the database).

Run: ``.venv/bin/python tests/bench/bench_error_spans.py [--rows 100000] [--resamples 1000] [--platform]``
(``--platform`` needs PostgreSQL on 127.0.0.1:5432, or ``BENCH_ADMIN_DATABASE_URL``). Prints Markdown. Time is
one run (each stage takes seconds); peak memory is ``tracemalloc``'s peak during the stage, in a separate run.
Asserts only that the ways give the same numbers.
"""

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from itertools import combinations
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
ADMIN_URL = os.environ.get("BENCH_ADMIN_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")

from agreement.stats.spans import span_agreement, span_set  # noqa: E402
from annotation.error_span_formats import mark_span, read_error_rows  # noqa: E402
from evaluation.stats import WMT_MQM_WEIGHTS, mqm_scores  # noqa: E402

CATEGORIES = ("Accuracy/Mistranslation", "Fluency/Grammar", "Fluency/Punctuation", "Style/Awkward", "Terminology")


def synthetic_tsv(n_rows: int, seed: int = 0) -> str:
    """A WMT-layout study with about ``n_rows`` rows: 10 systems, 3 raters per (system, segment), about
    2.5 errors per rating, raters who partly agree on a segment's error positions."""
    rng = np.random.default_rng(seed)
    n_items = max(1, n_rows // 8)
    out = io.StringIO()
    out.write("system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n")
    raters = [f"rater{k}" for k in range(8)]
    for item in range(n_items):
        system, seg = f"sys{item % 10}", str(item // 10)
        length = int(rng.integers(40, 220))
        text = ("Ein Satz mit Fehlern " * (length // 21 + 1))[:length]
        truth = [tuple(sorted(rng.integers(0, length, 2))) for _ in range(3)]
        for rater in rng.choice(raters, 3, replace=False):
            n_err = rng.poisson(2.5)
            if n_err == 0:
                out.write(f"{system}\td\t1\t{seg}\t{rater}\tsrc\t{text}\tNo-error\tNo-error\n")
            for _ in range(n_err):
                a, b = truth[rng.integers(0, 3)] if rng.random() < 0.6 else sorted(rng.integers(0, length, 2))
                a, b = int(a), int(max(b, a + 1) if a < length else a)
                severity = "Major" if rng.random() < 0.25 else "Minor"
                out.write(
                    f"{system}\td\t1\t{seg}\t{rater}\tsrc\t{mark_span(text, a, min(b, length))}\t"
                    f"{CATEGORIES[rng.integers(0, len(CATEGORIES))]}\t{severity}\n"
                )
    return out.getvalue()


def to_span_set(rows):
    items = {}
    for r in rows:
        items.setdefault((r.system, r.segment), len(r.target))
    index = {k: i for i, k in enumerate(items)}
    raters = {k: i for i, k in enumerate(sorted({r.rater for r in rows}))}
    ratings = sorted({(index[r.system, r.segment], raters[r.rater]) for r in rows})
    spans = [r for r in rows if r.start is not None]
    return span_set(
        list(items.values()),
        ratings,
        segment=np.array([index[r.system, r.segment] for r in spans]),
        rater=np.array([raters[r.rater] for r in spans]),
        start=np.array([r.start for r in spans]),
        end=np.array([r.end for r in spans]),
        severity=[r.severity.lower() for r in spans],
    )


def pandas_scores(rows):
    """The baseline of the scores: WMT24 tools.py style, a weight per row by rule, then groupbys."""
    df = pd.DataFrame(
        {
            "system": [r.system for r in rows],
            "segment": [r.segment for r in rows],
            "rater": [r.rater for r in rows],
            "severity": [r.severity for r in rows],
            "category": [r.category for r in rows],
        }
    )
    df["w"] = df.apply(lambda x: WMT_MQM_WEIGHTS.weight(x["severity"], x["category"]), axis=1)
    per_rating = df.groupby(["system", "segment", "rater"])["w"].sum()
    per_segment = per_rating.groupby(["system", "segment"]).mean()
    return per_segment.groupby("system").mean()


def naive_char_agreement(rows):
    """The baseline of the agreement: per pair of raters on each segment, a Python loop over characters
    building the 'any error' table; pooled Cohen's kappa and character F1 from it."""
    by_rating, lengths = {}, {}
    for r in rows:
        key = (r.system, r.segment)
        lengths[key] = len(r.target)
        marks = by_rating.setdefault((key, r.rater), set())
        if r.start is not None and r.side == "target":
            marks.update(range(r.start, r.end))
    raters_of = {}
    for key, rater in by_rating:
        raters_of.setdefault(key, []).append(rater)
    table = [[0, 0], [0, 0]]
    for key, raters in raters_of.items():
        for a, b in combinations(sorted(raters), 2):
            ma, mb = by_rating[key, a], by_rating[key, b]
            for x in range(lengths[key]):
                table[x in ma][x in mb] += 1
    n = sum(map(sum, table))
    po = (table[0][0] + table[1][1]) / n
    pe = (
        (table[0][0] + table[0][1]) * (table[0][0] + table[1][0])
        + (table[1][0] + table[1][1]) * (table[0][1] + table[1][1])
    ) / n**2
    return (po - pe) / (1 - pe), 2 * table[1][1] / (2 * table[1][1] + table[0][1] + table[1][0])


def measure(fn):
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, seconds, peak / 2**20


def items_jsonl(tsv: str) -> bytes:
    """The items the TSV's rows judge: one per segment, an output per system with the row's text (marks
    removed), read with a plain split so that the set-up's memory stays below the import's."""
    items = {}
    for line in tsv.splitlines()[1:]:
        fields = line.split("\t")
        items.setdefault(fields[3], {})[fields[0]] = fields[6].replace("<v>", "").replace("</v>", "")
    return "".join(
        json.dumps({"external_id": seg, "input": "src", "outputs": [{"system": s, "text": t} for s, t in out.items()]})
        + "\n"
        for seg, out in items.items()
    ).encode()


def run_platform(tsv_path: str, resamples: int) -> None:
    """In a child process on a fresh database: import, results, span agreement; one JSON line per stage."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from annotation.selectors.error_spans import span_ratings
    from annotation.services import item_import, judgment_import, project_create
    from evaluation.services import ResultOptions, results_compute

    def status_mb(field: str) -> float:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith(field + ":")) / 1024

    def stage(name, fn):
        # Linux: writing 5 to clear_refs resets the peak RSS (VmHWM), so each stage's own peak is read
        # (migrate's, in the set-up, would otherwise stand for all of them)
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = status_mb("VmRSS")
        start = time.perf_counter()
        result = fn()
        seconds = time.perf_counter() - start
        line = {"stage": name, "seconds": seconds, "rss_before_mb": before, "peak_rss_mb": status_mb("VmHWM")}
        print(json.dumps(line), flush=True)
        return result

    data = Path(tsv_path).read_bytes()
    typology = {}
    for c in CATEGORIES:
        group, _, child = c.partition("/")
        typology.setdefault(group, []).extend([child] if child else [])
    lead = get_user_model().objects.create_user("bench-lead")
    project = project_create(
        created_by=lead,
        name="bench",
        task_type="mqm",
        criteria=[{"name": "MQM"}],
        task_config={"typology": [{"name": g, **({"children": c} if c else {})} for g, c in typology.items()]},
    )
    item_import(project=project, stream=io.BytesIO(items_jsonl(data.decode())), fmt="jsonl")
    n = stage("import", lambda: judgment_import(project=project, stream=io.BytesIO(data), fmt="tsv"))
    out = stage(
        "results",
        lambda: results_compute(project=project, options=ResultOptions(n_resamples=resamples, test_resamples=0)),
    )

    def agreement():
        r = span_ratings(project.id)
        outputs, unit = np.unique(r.output, return_inverse=True)
        raters, rater = np.unique(r.rater, return_inverse=True)
        lengths = np.zeros(len(outputs), dtype=np.int64)
        lengths[unit] = r.target_length
        keep = r.side == "target"
        spans = span_set(
            lengths,
            sorted(set(zip(unit.tolist(), rater.tolist(), strict=True))),
            segment=unit[r.span_rating[keep]],
            rater=rater[r.span_rating[keep]],
            start=r.start[keep],
            end=r.end[keep],
            severity=r.severity[keep].astype(str),
        )
        return span_agreement(spans, rng=np.random.default_rng(0), n_resamples=resamples)

    point = stage("agreement", agreement)
    systems = {s.system: s.micro for s in out["criteria"][0].systems}
    print(json.dumps({"judgments": n, "systems": systems, "kappa_any": point.get("kappa", "any").value}))


def platform(text: str, resamples: int) -> tuple[list[dict], dict]:
    """The platform stages in a child process on a fresh database (dropped after)."""
    db = f"concord_bench_{uuid.uuid4().hex[:8]}"
    subprocess.run(["psql", ADMIN_URL, "-qc", f"CREATE DATABASE {db}"], check=True, capture_output=True)
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.base",
                   "DJANGO_SECRET_KEY": "bench-" + "x" * 50,
                   "DATABASE_URL": ADMIN_URL.rsplit("/", 1)[0] + "/" + db}  # fmt: skip
            env.pop("REDIS_URL", None)
            cmd = [sys.executable, __file__, "--run-platform", f.name, str(resamples)]
            out = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    finally:
        subprocess.run(["psql", ADMIN_URL, "-qc", f"DROP DATABASE {db}"], check=True, capture_output=True)
    lines = [json.loads(line) for line in out.strip().splitlines() if line.startswith("{")]
    return lines[:-1], lines[-1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--platform", action="store_true", help="also through the platform on PostgreSQL")
    args = parser.parse_args()
    text = synthetic_tsv(args.rows)
    rows, t_parse, m_parse = measure(lambda: read_error_rows(io.StringIO(text)))
    n_spans = sum(r.start is not None for r in rows)
    n_items = len({(r.system, r.segment) for r in rows})
    print(f"{len(rows):,} rows ({n_spans:,} spans), {n_items:,} (system, segment) items\n")
    scores, t_score, m_score = measure(
        lambda: mqm_scores(
            [r.system for r in rows], [r.segment for r in rows], [r.rater for r in rows],
            [r.severity for r in rows], [r.category for r in rows],
        )
    )  # fmt: skip
    base_scores, t_pandas, m_pandas = measure(lambda: pandas_scores(rows))
    assert np.allclose(scores.system_score, base_scores.loc[list(scores.systems)].to_numpy())
    spans, t_index, m_index = measure(lambda: to_span_set(rows))
    point, t_point, m_point = measure(lambda: span_agreement(spans, n_resamples=0))
    boot, t_boot, m_boot = measure(
        lambda: span_agreement(spans, rng=np.random.default_rng(0), n_resamples=args.resamples)
    )
    _, t_pct, m_pct = measure(
        lambda: span_agreement(spans, rng=np.random.default_rng(0), n_resamples=args.resamples, method="percentile")
    )
    (kappa, f1), t_naive, m_naive = measure(lambda: naive_char_agreement(rows))
    assert abs(kappa - point.get("kappa", "any").value) < 1e-9 and abs(f1 - point.get("char_f1", "any").value) < 1e-9
    print("| stage | time (s) | peak memory (MiB) |\n|---|---:|---:|")
    for name, t, m in (
        ("parse (read_error_rows, marked layout)", t_parse, m_parse),
        ("score (mqm_scores)", t_score, m_score),
        ("score, baseline: pandas apply + groupby", t_pandas, m_pandas),
        ("index spans (span_set, incl. Python lists)", t_index, m_index),
        ("span agreement, point values (all statistics, pairs)", t_point, m_point),
        (f"span agreement + BCa bootstrap ({args.resamples} resamples)", t_boot, m_boot),
        (f"span agreement + percentile bootstrap ({args.resamples} resamples)", t_pct, m_pct),
        ("baseline: per-character loop, one table (any), point only", t_naive, m_naive),
    ):
        print(f"| {name} | {t:.2f} | {m:.0f} |")
    print(
        f"\nThe per-character loop gives one scheme's pooled table once; a bootstrap that recomputed it would "
        f"take about {args.resamples} x {t_naive:.1f} s = {args.resamples * t_naive / 3600:.1f} h."
    )
    st = boot.get("unitizing_alpha", "any")
    print(f"unitizing alpha (any) {st.value:.4f} [{st.ci_low:.4f}, {st.ci_high:.4f}]; kappa (any) {kappa:.4f}")
    if args.platform:
        stages, check = platform(text, args.resamples)
        # the platform's numbers are the library's: same system scores, same kappa
        assert np.allclose([check["systems"][k] for k in scores.systems], scores.system_score)
        assert abs(check["kappa_any"] - kappa) < 1e-9
        print(f"\nThrough the platform (PostgreSQL, one process, fresh database), {check['judgments']:,} judgments:\n")
        print(
            "| stage | time (s) | RSS before (MiB) | peak RSS during (MiB) | library baseline in this run (s) |\n"
            "|---|---:|---:|---:|---:|"
        )
        baseline = {"import": t_parse, "results": t_score, "agreement": t_index + t_boot}
        names = {
            "import": "judgment import of the TSV (check, then COPY judgments and spans)",
            "results": f"results_compute (MQM, categories, WMT ranking, {args.resamples} bootstrap samples)",
            "agreement": f"span agreement from the stored spans (span_ratings, span_set, BCa {args.resamples})",
        }
        for st in stages:
            print(f"| {names[st['stage']]} | {st['seconds']:.2f} | {st['rss_before_mb']:.0f} | "
                  f"{st['peak_rss_mb']:.0f} | {baseline[st['stage']]:.2f} |")  # fmt: skip


if __name__ == "__main__":
    if sys.argv[1:2] == ["--run-platform"]:
        run_platform(sys.argv[2], int(sys.argv[3]))
    else:
        main()
