from django.core.management.base import BaseCommand, CommandError

from annotation.task_types import REGISTRY
from annotation.task_types.facts import COMPARED
from evaluation.selectors import judge_list_for_project, metric_names_for_project
from evaluation.services import ResultOptions, judge_agreement_report, metric_correlations, results_compute
from evaluation.stats import WEIGHTINGS
from evaluation.stats.correlation import LEVELS, METHODS

from ._project_arg import project_from_arg


def fmt(value, digits=3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def ci(pair) -> str:
    return f"[{fmt(pair[0])}, {fmt(pair[1])}]"


def table(rows: list[list[str]]) -> str:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    lines = [
        "  ".join(c.ljust(w) if k == 0 else c.rjust(w) for k, (c, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Print a project's results, metric correlations and judge agreement as the results page shows them."

    def add_arguments(self, parser):
        parser.add_argument("project", help="project id or exact name")
        parser.add_argument("--n-resamples", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--aggregate", choices=["none", "majority"], default="none")
        parser.add_argument("--ties", choices=["half", "davidson"], default="half")
        parser.add_argument(
            "--weighting",
            choices=list(WEIGHTINGS),
            default=None,
            help="pairwise judgments drawn adaptively: how the strengths weight them (default: the project's setting)",
        )
        parser.add_argument("--level", choices=LEVELS, default="system")
        parser.add_argument("--method", choices=METHODS, default="kendall")
        parser.add_argument("--exclude-system", action="append", default=[])

    def header(self, criterion: str, n_items: int, n_raters: int, error: str | None) -> None:
        self.stdout.write(f"\n== {criterion} ({n_items} items, {n_raters} raters)")
        if error:
            self.stdout.write(f"   {error}")

    def handle(
        self, *args, project, n_resamples, seed, aggregate, ties, weighting, level, method, exclude_system, **options
    ):
        project = project_from_arg(project)
        try:
            results = results_compute(
                project=project,
                options=ResultOptions(
                    n_resamples=n_resamples, seed=seed, aggregate=aggregate, ties=ties, weighting=weighting
                ),
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        out = self.stdout.write
        excluded = results["excluded"]
        out(
            f"{project.name} ({project.task_type}): {results['n_judgments']} judgments; left out "
            f"{excluded['gold_items']} on gold items, {excluded['excluded_raters']} from excluded raters"
        )
        compares = REGISTRY[project.task_type].results.kind == COMPARED
        for c in results["criteria"]:
            if compares:
                self.header(c.criterion, c.n_items, c.n_raters, c.error)
                rows = [["system", "n", "win rate", "strength", "95% CI"]] + [
                    [s.system, str(s.n), fmt(s.win_rate, 4), fmt(s.strength), ci(s.strength_ci)] for s in c.systems
                ]
                pairs = [["A", "B", "A wins", "ties", "B wins", "Holm p", "holds"]] + [
                    [
                        p.system_a,
                        p.system_b,
                        str(p.wins),
                        str(p.ties),
                        str(p.losses),
                        fmt(p.p_holm, 4),
                        "yes" if p.significant else "no",
                    ]
                    for p in c.pairs
                ]
            else:
                # error spans have no median and their p-values no Holm correction (as WMT reports them)
                self.header(c.criterion, c.n_items, c.n_raters, c.error)
                rows = [["system", "n", "mean", "95% CI", "median"]] + [
                    [s.system, str(s.n), fmt(s.mean), ci(s.mean_ci), fmt(getattr(s, "median", None))] for s in c.systems
                ]
                pairs = [["A", "B", "A − B", "Holm p", "holds"]] + [
                    [
                        p.system_a,
                        p.system_b,
                        fmt(p.difference),
                        fmt(getattr(p, "p_holm", None), 4),
                        "yes" if p.significant else "no",
                    ]
                    for p in c.comparisons
                ]
            if len(rows) > 1:
                out(table(rows))
            if len(pairs) > 1:
                out("")
                out(table(pairs))
        if not compares and metric_names_for_project(project).exists():
            report = metric_correlations(
                project=project,
                levels=[level],
                methods=[method],
                n_resamples=0,
                exclude_systems=exclude_system,
            )
            label = next((r["label"] for r in report["rows"] if r["label"]), "")
            out(f"\n== Metrics against humans: {label}")
            values = {(r["metric"], r["criterion"]): r["value"] for r in report["rows"]}
            out(
                table(
                    [["metric", *report["criteria"]]]
                    + [[m, *(fmt(values[m, c]) for c in report["criteria"])] for m in report["metrics"]]
                )
            )
        if judge_list_for_project(project).exists():
            report = judge_agreement_report(project=project, n_resamples=min(n_resamples, 500), seed=seed)
            stat = report["statistics"][0]
            out(f"\n== Judges beside the humans ({stat}, per {report['unit']})")
            for c in report["criteria"]:
                if c["error"]:
                    out(f"{c['criterion']}: {c['error']}")
                    continue
                rows = [
                    ["who", "with a human", "95% CI"],
                    ["humans", fmt(c["human_human"][stat]["value"]), ci(c["human_human"][stat]["ci"])],
                ]
                rows += [
                    [j["judge"], fmt(j["judge_human"][stat]["value"]), ci(j["judge_human"][stat]["ci"])]
                    for j in c["judges"]
                ]
                out(f"-- {c['criterion']}")
                out(table(rows))
