"""The leads' results page: per-system tables with intervals, significance marks, a Bradley–Terry
(or mean) plot with intervals, a metric correlation heatmap and the judges beside the humans; the
judges page (alt-test, prediction-powered estimates, confusion); the rater models page; the study planning
page; and the export page, which starts a dataset export and follows its job."""

import math
from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.models import Membership
from annotation.selectors import project_get_for_lead, project_list_for_user, project_role
from annotation.task_types import REGISTRY
from annotation.task_types.facts import COMPARED, CONTINUOUS, ERROR_SPANS, SCORED
from evaluation.export.writers import FORMATS
from evaluation.models import Export, MetricInput
from evaluation.selectors import calibrator_summaries, judge_list_for_project, metric_names_for_project
from evaluation.services import (
    ABOUT_FIELDS,
    ExportOptions,
    ResultOptions,
    export_start,
    export_state,
    judge_agreement_report,
    judge_alt_test_report,
    judge_confusion,
    judge_prediction_powered_report,
    metric_catalogue,
    metric_correlations,
    metric_input_upload,
    rater_models_recompute_start,
    rater_models_stored,
    results_compute,
    study_plan,
    study_plan_apply,
)
from evaluation.services.error_span_results import ErrorSpanCriterion
from evaluation.services.leaderboard import MAX_REMOVALS, LeaderboardCriterion, LeaderboardOptions, pairwise_leaderboard
from evaluation.services.pairwise_results import PairwiseCriterion
from evaluation.services.scored_results import ScoredCriterion
from evaluation.stats import COMPARISONS, significance_clusters
from evaluation.stats.correlation import LEVELS, METHODS

PLOT_WIDTH, ROW_HEIGHT, LABEL_WIDTH = 640, 26, 170


def interval_plot(
    rows: list[tuple[str, float | None, float | None, float | None]], clusters: list[int] | None = None
) -> dict:
    """SVG geometry of a dot-and-whisker plot: one row per (label, value, low, high), best first; with
    ``clusters`` (one significance cluster per row), on bands of alternating shade, one per cluster."""
    clusters = clusters or []
    known = [v for _, *vals in rows for v in vals if v is not None]
    if not known:
        return {}
    low, high = min(known), max(known)
    span = (high - low) or 1.0
    low, high = low - 0.05 * span, high + 0.05 * span

    def x(v):
        return None if v is None else LABEL_WIDTH + (v - low) / (high - low) * (PLOT_WIDTH - LABEL_WIDTH - 20)

    return {
        "width": PLOT_WIDTH,
        "height": ROW_HEIGHT * len(rows) + 30,
        "label_x": LABEL_WIDTH - 8,
        "zero": x(0.0) if low < 0 < high else None,
        "axis_low": f"{low:.3g}",
        "axis_high": f"{high:.3g}",
        "axis_y": ROW_HEIGHT * len(rows) + 18,
        "right": PLOT_WIDTH - 20,
        "left": LABEL_WIDTH,
        "rows": [
            {"label": label, "y": ROW_HEIGHT * k + 16, "x": x(v), "x_low": x(lo), "x_high": x(hi)}
            for k, (label, v, lo, hi) in enumerate(rows)
        ],
        "bands": [
            {
                "cluster": c,
                "y": ROW_HEIGHT * clusters.index(c) + 3,
                "height": ROW_HEIGHT * clusters.count(c),
                "odd": c % 2 == 1,
            }
            for c in dict.fromkeys(clusters)
        ],
        "n_clusters": max(clusters, default=0),
    }


def heat(value: float | None) -> str:
    """Cell colour of a correlation: blue for positive, red for negative, paler near zero."""
    if value is None:
        return "#eee"
    hue = 215 if value >= 0 else 5
    return f"hsl({hue}, 70%, {round(96 - 46 * min(abs(value), 1.0))}%)"


@dataclass(frozen=True)
class CriterionPage:
    """What the results page shows of a criterion: its results (a criterion of ``results_compute``), the interval
    plot, the pairs whose difference holds and, for pair-comparing projects, its leaderboard."""

    result: ErrorSpanCriterion | PairwiseCriterion | ScoredCriterion
    plot: dict
    significant_pairs: list
    leaderboard: LeaderboardCriterion | None


def _ranked_plot(points: list[tuple], significant: list[tuple[str, str]]) -> dict:
    """The interval plot of (system, value, low, high) ranked by value (those without one last), banded by the
    significance clusters of the ``significant`` pairs."""
    ranked = sorted(points, key=lambda p: -p[1] if p[1] is not None else float("inf"))
    clusters = significance_clusters([p[0] for p in ranked], {frozenset(pair) for pair in significant})
    return interval_plot(ranked, clusters)


@login_required
def results_page(request, pk):
    project = project_get_for_lead(request.user, pk)
    results = results_compute(project=project, options=ResultOptions(n_resamples=500, test_resamples=5000))
    kind = REGISTRY[project.task_type].results.kind
    compares = kind == COMPARED
    style = request.GET.get("style") == "1"
    leaderboard = {}
    if compares:
        board = pairwise_leaderboard(project=project, options=LeaderboardOptions(style=style))
        leaderboard = {c.criterion: c for c in board.criteria}
    pages = []
    for criterion in results["criteria"]:
        if kind == ERROR_SPANS:
            # ranked best first by the WMT procedure, with its own clusters (no Holm correction)
            rows = criterion.systems if not criterion.error else ()
            significant = [c for c in criterion.comparisons if c.significant]
            plot = interval_plot([(s.system, s.mean, *s.mean_ci) for s in rows], [s.cluster for s in rows])
        elif compares:
            significant = [p for p in criterion.pairs if p.significant]
            points = [(s.system, s.strength, *s.strength_ci) for s in criterion.systems]
            plot = _ranked_plot(points, [(p.system_a, p.system_b) for p in significant])
        else:
            significant = [c for c in criterion.comparisons if c.significant]
            points = [(s.system, s.mean, *s.mean_ci) for s in criterion.systems]
            plot = _ranked_plot(points, [(c.system_a, c.system_b) for c in significant])
        pages.append(CriterionPage(criterion, plot, significant, leaderboard.get(criterion.criterion)))
    context = {
        "project": project,
        "results": results,
        "criteria": pages,
        "compares": compares,
        "style": style,
        "min_judgments": (project.task_config or {}).get("min_judgments_per_system", 0),
        "max_removals": MAX_REMOVALS,
        "error_spans": kind == ERROR_SPANS,
        "mean_ranks": REGISTRY[project.task_type].results.mean_ranks,
        "heatmap": None,
        "judges": None,
        "levels": LEVELS,
        "methods": METHODS,
        "calibrators": calibrator_summaries(project),
    }
    level = request.GET.get("level") if request.GET.get("level") in LEVELS else "system"
    method = request.GET.get("method") if request.GET.get("method") in METHODS else "kendall"
    has_metrics = metric_names_for_project(project).exists()
    if has_metrics and REGISTRY[project.task_type].results.kind == SCORED:
        report = metric_correlations(project=project, levels=[level], methods=[method], n_resamples=0)
        values = {(r["metric"], r["criterion"]): r["value"] for r in report["rows"]}
        context["heatmap"] = {
            "level": level,
            "method": method,
            "criteria": report["criteria"],
            "label": next((r["label"] for r in report["rows"] if r["label"]), ""),
            "rows": [
                {
                    "metric": m,
                    "cells": [
                        {"value": values.get((m, c)), "colour": heat(values.get((m, c)))} for c in report["criteria"]
                    ],
                }
                for m in report["metrics"]
            ],
        }
    if judge_list_for_project(project).exists():
        context["judges"] = judge_agreement_report(project=project, n_resamples=200)
    return render(request, "evaluation/results.html", context)


def _export_options(form) -> tuple[ExportOptions, dict[str, str]]:
    """Export options from the page's form, and what is wrong with them (by option)."""

    def words(name):
        return tuple(w for w in form.get(name, "").replace(",", " ").split() if w)

    options = ExportOptions(
        formats=tuple(form.getlist("formats")),
        split=form.get("split", "all"),
        include_usernames=form.get("include_usernames") == "on",
        include_excluded=form.get("include_excluded") == "on",
        recompute_agreement=form.get("recompute_agreement") == "on",
        license=form.get("license", "").strip() or "unknown",
        languages=words("languages"),
        task_categories=words("task_categories") or ("text-generation",),
        pretty_name=form.get("pretty_name", "").strip(),
        csv_raw_text=form.get("csv_raw_text") == "on",
        soft_labels=form.get("soft_labels") == "on",
        include_sensitive_profile=form.get("include_sensitive_profile") == "on",
        **{name: form.get(name, "").strip() for name in ABOUT_FIELDS},
    )
    return options, options.errors()


@login_required
def export_page(request, pk):
    """The lead's export page: the options, then the job's progress bar and the download link."""
    project = project_get_for_lead(request.user, pk)
    options = ExportOptions()
    errors: dict[str, str] = {}
    if request.method == "POST":
        options, errors = _export_options(request.POST)
        if not errors:
            export = export_start(project=project, options=options, created_by=request.user)
            return redirect(f"{reverse('evaluation-export', args=[project.pk])}?export={export.id}")
    exports = list(Export.objects.filter(project=project).select_related("job").order_by("-id")[:10])
    for export in exports:
        export.state = export_state(export)
    watched = request.GET.get("export", "")
    active = next((e for e in exports if str(e.id) == watched), None) or next(
        (e for e in exports if e.state in ("pending", "running")), None
    )
    context = {
        "project": project,
        "options": options,
        "errors": errors,
        "formats": FORMATS,
        "about_fields": [(name, label, getattr(options, name)) for name, label in ABOUT_FIELDS.items()],
        "exports": exports,
        "active": active,
    }
    return render(request, "evaluation/export.html", context, status=400 if errors else 200)


_INPUT_KINDS = (
    (
        MetricInput.Kind.TRAINING_CORPUS,
        "Training corpus",
        "UTF-8 text, one utterance a line: the word and bigram frequencies of the dialog entropy, KL "
        "divergence, distinct and embedding-average metrics, and the bigram perplexity model.",
    ),
    (
        MetricInput.Kind.WORD_VECTORS,
        "Word vectors",
        "word2vec or fastText text format (an optional “count dimension” line, then a word and its values "
        "a line): the dialog embedding metrics.",
    ),
)


@login_required
def metric_inputs_page(request, pk):
    """The lead's metrics page: upload the training corpus and word vectors, and see every metric
    with its definition, what it needs and whether it can be computed here."""
    project = project_get_for_lead(request.user, pk)
    error = ""
    if request.method == "POST":
        upload, kind = request.FILES.get("file"), request.POST.get("kind", "")
        if upload is None:
            error = "choose a file to upload"
        elif upload.size > settings.CONCORD_MAX_IMPORT_BYTES:
            error = f"the file is larger than the limit of {settings.CONCORD_MAX_IMPORT_BYTES} bytes"
        else:
            try:
                metric_input_upload(
                    project=project, kind=kind, data=upload.read(), file_name=upload.name, by=request.user
                )
            except ValueError as exc:
                error = str(exc)
            else:
                return redirect("evaluation-metric-inputs", pk=project.pk)
    current = {row.kind: row for row in MetricInput.objects.filter(project=project)}
    context = {
        "project": project,
        "kinds": [
            {"name": k, "label": label, "help": text, "current": current.get(k)} for k, label, text in _INPUT_KINDS
        ],
        "catalogue": metric_catalogue(project),
        "error": error,
    }
    return render(request, "evaluation/metric_inputs.html", context, status=400 if error else 200)


def share_plot(rows: list[tuple[str, float, float]]) -> dict:
    """SVG geometry of a bar per (label, winning rate, advantage probability) on 0..1, the winning
    rate as a bar and the advantage probability as a dot, with the pass line at 0.5."""
    if not rows:
        return {}
    width = PLOT_WIDTH - LABEL_WIDTH - 20

    def x(v):
        return LABEL_WIDTH + v * width

    return {
        "width": PLOT_WIDTH,
        "height": ROW_HEIGHT * len(rows) + 30,
        "label_x": LABEL_WIDTH - 8,
        "left": LABEL_WIDTH,
        "right": PLOT_WIDTH - 20,
        "half": x(0.5),
        "axis_y": ROW_HEIGHT * len(rows) + 18,
        "rows": [
            {"label": label, "y": ROW_HEIGHT * k + 16, "bar": omega * width, "dot": x(rho), "passed": omega >= 0.5}
            for k, (label, omega, rho) in enumerate(rows)
        ],
    }


def _number(form, name, default, low, high):
    """A float option of a page's query, within [low, high]; the default when absent or bad."""
    try:
        value = float(form.get(name, default))
    except ValueError:
        return default
    return value if low <= value <= high else default


def _confusion_cell(confusion: dict, cell: str) -> dict | None:
    human, _, judge = cell.partition("|")
    for row in confusion["rows"]:
        for c in row["cells"]:
            if row["human"] == human and c["judge"] == judge:
                return {"human": human, "judge": judge, "units": c["units"]}
    return None


@login_required
def judges_page(request, pk):
    """Can a judge replace the raters: the alt-test of every judge (version beside version), the
    prediction-powered estimates of one judge, and its confusion against the human majority."""
    project = project_get_for_lead(request.user, pk)
    epsilon = _number(request.GET, "epsilon", 0.15, 0.0, 0.99)
    q = _number(request.GET, "q", 0.05, 0.001, 0.5)
    judges = list(judge_list_for_project(project))
    criteria = list(project.criteria.order_by("position", "id").values_list("name", flat=True))
    context = {
        "project": project,
        "epsilon": epsilon,
        "q": q,
        "judges": judges,
        "criteria": criteria,
        "unit": REGISTRY[project.task_type].agreement.unit,
    }
    if not judges:
        return render(request, "evaluation/judges.html", context)
    test = request.GET.get("test") if request.GET.get("test") in ("t", "wilcoxon") else "t"
    expert = request.GET.get("expert", "")
    context.update(test=test, expert=expert, expert_error=None)
    try:
        report = judge_alt_test_report(project=project, epsilon=epsilon, q=q, test=test, expert=expert)
    except ValueError as exc:  # an expert who is not a rater: say so, test without one
        context.update(expert="", expert_error=str(exc))
        report = judge_alt_test_report(project=project, epsilon=epsilon, q=q, test=test)
    for c in report["criteria"]:
        c["plot"] = share_plot(
            [
                (j["judge"], j["overall"]["winning_rate"], j["overall"]["advantage_probability"])
                for j in c["judges"]
                if j["overall"]
            ]
        )
    names = [j.name for j in judges]
    chosen = request.GET.get("judge") if request.GET.get("judge") in names else names[0]
    ppi = judge_prediction_powered_report(project=project, judge=chosen)
    ways = (("prediction_powered", "PPI"), ("human_only", "humans"), ("judge_only", "judge"))
    for c in ppi["criteria"]:
        # means and win rates are on different scales: one plot each
        c["plots"] = [
            {"kind": kind, "plot": plot}
            for kind in ("mean", "win_rate")
            if (
                plot := interval_plot(
                    [
                        (f"{e['label']} · {label}", e[way]["value"], *e[way]["ci"])
                        for e in c["estimands"]
                        if e["kind"] == kind and not e["error"]
                        for way, label in ways
                    ]
                )
            )
        ]
    context.update(alt=report, ppi=ppi, chosen=chosen, confusion=None, cell=None)
    if REGISTRY[project.task_type].values.kind != CONTINUOUS:
        criterion = request.GET.get("criterion") if request.GET.get("criterion") in criteria else criteria[0]
        context["confusion"] = judge_confusion(project=project, judge=chosen, criterion=criterion)
        context["cell"] = _confusion_cell(context["confusion"], request.GET.get("cell", ""))
    return render(request, "evaluation/judges.html", context)


def power_plot(points: list[dict], target: float) -> dict:
    """SVG geometry of power against items (log scale), one polyline per raters-per-item."""
    if not points:
        return {}
    width, height, left, top = PLOT_WIDTH, 310, 60, 16
    items = sorted({p["n_items"] for p in points})
    low, high = math.log(items[0]), math.log(items[-1]) if items[-1] > items[0] else math.log(items[0]) + 1

    def x(n):
        return left + (math.log(n) - low) / (high - low) * (width - left - 20)

    def y(p):
        return top + (1 - p) * (height - top - 40)

    lines, designs = [], sorted({p["raters_per_item"] for p in points})
    for k, raters in enumerate(designs):
        mine = sorted((p for p in points if p["raters_per_item"] == raters), key=lambda p: p["n_items"])
        lines.append(
            {
                "raters": raters,
                "colour": PALETTE[k % len(PALETTE)],
                "points": " ".join(f"{x(p['n_items']):.1f},{y(p['power']):.1f}" for p in mine),
                "dots": [
                    {"x": x(p["n_items"]), "y": y(p["power"]), "power": p["power"], "n": p["n_items"]} for p in mine
                ],
                # bottom right, where power curves rarely run
                "legend_y": y(0) - 10 - 14 * (len(designs) - 1 - k),
            }
        )
    return {
        "width": width,
        "height": height,
        "left": left,
        "right": width - 20,
        "bottom": y(0),
        "target_y": y(target),
        "ticks": [{"x": x(n), "label": n} for n in items],
        "y_ticks": [{"y": y(p), "label": f"{p:.0%}"} for p in (0, 0.25, 0.5, 0.75, 1)],
        "lines": lines,
        "legend_x": width - 120,
    }


PALETTE = ("#204a87", "#ce5c00", "#4e9a06", "#5c3566", "#a40000", "#8f5902")
COMPARISON_LABELS = {
    "mean_difference": "paired mean difference",
    "win_rate": "win rate",
    "bradley_terry": "Bradley–Terry gap",
}
PLAN_DEFAULTS = {"comparison": "mean_difference", "effect": "0.3", "target_power": "0.8", "alpha": "0.05"}


@login_required
def study_plan_page(request, pk):
    """Study planning from the project's judgments: the power curve, the recommended design, where the
    study stands, and (before raters start) applying the design's raters per item."""
    project = project_get_for_lead(request.user, pk)
    pilots = [
        p
        for p in project_list_for_user(request.user).filter(task_type=project.task_type).exclude(pk=project.pk)
        if project_role(request.user, p) == Membership.Role.LEAD
    ]
    pilot = next((p for p in pilots if str(p.pk) == request.GET.get("pilot")), None)
    criteria = list((pilot or project).criteria.order_by("position", "id").values_list("name", flat=True))
    comparisons = [
        (c, COMPARISON_LABELS[c])
        for c in COMPARISONS
        if not (REGISTRY[project.task_type].results.kind == COMPARED and c == "mean_difference")
    ]
    form = {**PLAN_DEFAULTS, "criterion": criteria[0] if criteria else "", **request.GET.dict()}
    if form["comparison"] not in dict(comparisons):
        form["comparison"] = comparisons[0][0]
        form["effect"] = "0.6"
    context = {
        "project": project,
        "criteria": criteria,
        "comparisons": comparisons,
        "form": form,
        "plan": None,
        "pilots": pilots,
        "pilot": pilot,
    }
    status = 200
    if request.method == "POST":
        try:
            study_plan_apply(
                project=project, raters_per_item=int(request.POST.get("raters_per_item", "")), by=request.user
            )
        except ValueError as exc:
            context["apply_error"] = str(exc)
            status = 400
        else:
            project.refresh_from_db()
            context["applied"] = project.raters_per_item
    try:
        systems = [s for s in (form.get("system_a"), form.get("system_b")) if s]
        plan = study_plan(
            project=project,
            criterion=form["criterion"],
            comparison=form["comparison"],
            effect=float(form["effect"]),
            target_power=float(form["target_power"]),
            alpha=float(form["alpha"]),
            systems=systems if len(systems) == 2 else None,
            n_simulations=1000,
            pilot_project=pilot,
        )
    except ValueError as exc:
        context["error"] = str(exc)
    else:
        plan["plot"] = power_plot(plan["points"], plan["target_power"])
        context["plan"] = plan
    return render(request, "evaluation/plan.html", context, status=status)


SHOWN_UNITS = 20


def _rater_models_view(criterion: dict) -> dict:
    """What the page shows of a criterion's rater models: category names in place of values, and the
    units a model overrules the majority vote on or moves furthest from the mean."""
    names = {c["value"]: c["name"] for c in criterion["categories"] or []}
    order = [c["name"] for c in criterion["categories"] or []]
    for rater in criterion["raters"]:
        if "dawid_skene" in rater:
            rater["confusion_rows"] = [
                {"truth": order[k], "cells": row} for k, row in enumerate(rater["dawid_skene"]["confusion"])
            ]
    overruled = [
        u
        for u in criterion["units"]
        if "dawid_skene" in u and (u["majority"] is None or u["dawid_skene"]["label"] != u["majority"])
    ]
    criterion["n_overruled"] = len(overruled)
    criterion["overruled"] = [
        {
            **u,
            "majority_name": "tie" if u["majority"] is None else names[u["majority"]],
            "dawid_skene_name": names[u["dawid_skene"]["label"]],
            "mace_name": names[u["mace"]["label"]],
            "votes": ", ".join(f"{order[k]} {p:.0%}" for k, p in enumerate(u["soft_label"]) if p),
        }
        for u in overruled[:SHOWN_UNITS]
    ]
    moved = [u for u in criterion["units"] if u.get("gaussian", {}).get("score") is not None]
    moved.sort(key=lambda u: -abs(u["gaussian"]["score"] - u["mean"]))
    criterion["moved"] = [{**u, "change": u["gaussian"]["score"] - u["mean"]} for u in moved[:SHOWN_UNITS]]
    criterion["category_names"] = order
    return criterion


@login_required
def rater_models_page(request, pk):
    """Who disagrees and how: per criterion each rater's competence and confusion (categories) or bias and
    noise (scales), and the units where the models part from the majority vote or the mean, as last computed
    (with when, from how many judgments, and whether judgments came or went since)."""
    project = project_get_for_lead(request.user, pk)
    stored = rater_models_stored(project=project)
    criteria = [_rater_models_view(c) for c in stored.report["criteria"]] if stored.report else []
    return render(request, "evaluation/rater_models.html", {"project": project, "criteria": criteria, "stored": stored})


@login_required
@require_POST
def rater_models_recompute(request, pk):
    project = project_get_for_lead(request.user, pk)
    job = rater_models_recompute_start(project=project, user=request.user)
    messages.success(request, f"Rater models are being recomputed (job {job.id}); refresh in a moment.")
    return redirect("evaluation-rater-models", pk=project.pk)
