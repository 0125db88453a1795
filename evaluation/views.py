"""The leads' results page: per-system tables with intervals, significance marks, a Bradley–Terry
(or mean) plot with intervals, a metric correlation heatmap and the judges beside the humans; and the
export page, which starts a dataset export and follows its job."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse

from annotation.models import TaskType
from annotation.selectors import project_get_for_lead
from evaluation.export.writers import FORMATS
from evaluation.models import Export, MetricInput
from evaluation.selectors import calibrator_summaries, judge_list_for_project, metric_names_for_project
from evaluation.services import (
    ExportOptions,
    ResultOptions,
    export_start,
    export_state,
    judge_agreement_report,
    metric_catalogue,
    metric_correlations,
    metric_input_upload,
    results_compute,
)
from evaluation.stats.correlation import LEVELS, METHODS

PLOT_WIDTH, ROW_HEIGHT, LABEL_WIDTH = 640, 26, 170


def interval_plot(rows: list[tuple[str, float | None, float | None, float | None]]) -> dict:
    """SVG geometry of a dot-and-whisker plot: one row per (label, value, low, high)."""
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
    }


def heat(value: float | None) -> str:
    """Cell colour of a correlation: blue for positive, red for negative, paler near zero."""
    if value is None:
        return "#eee"
    hue = 215 if value >= 0 else 5
    return f"hsl({hue}, 70%, {round(96 - 46 * min(abs(value), 1.0))}%)"


@login_required
def results_page(request, pk):
    project = project_get_for_lead(request.user, pk)
    results = results_compute(project=project, options=ResultOptions(n_resamples=500, test_resamples=5000))
    for criterion in results["criteria"]:
        if project.task_type == TaskType.PAIRWISE:
            criterion["plot"] = interval_plot(
                [(s["system"], s["strength"], *s["strength_ci"]) for s in criterion["systems"]]
            )
        else:
            criterion["plot"] = interval_plot(
                [(s["system"], s["mean"], *s["mean_ci"]) for s in criterion["systems"]]
            )
        criterion["significant_pairs"] = [
            c for c in criterion.get("comparisons", []) + criterion.get("pairs", []) if c["significant"]
        ]
    context = {
        "project": project,
        "results": results,
        "heatmap": None,
        "judges": None,
        "levels": LEVELS,
        "methods": METHODS,
        "calibrators": calibrator_summaries(project),
    }
    level = request.GET.get("level") if request.GET.get("level") in LEVELS else "system"
    method = request.GET.get("method") if request.GET.get("method") in METHODS else "kendall"
    has_metrics = metric_names_for_project(project).exists()
    if has_metrics and project.task_type != TaskType.PAIRWISE:
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
                        {"value": values.get((m, c)), "colour": heat(values.get((m, c)))}
                        for c in report["criteria"]
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
    )
    return options, options.errors()


@login_required
def export_page(request, pk):
    """The lead's export page: the options, then the job's progress bar and the download link."""
    project = project_get_for_lead(request.user, pk)
    options, errors = ExportOptions(), {}
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
