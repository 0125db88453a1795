"""Metric scores and judges of a project, as lists for the API and as matrices for the statistics."""

import numpy as np
from django.db.models import Count, QuerySet

from annotation.models import Output, Project
from evaluation.models import Calibrator, Judge, MetricScore


def metric_names_for_project(project: Project) -> QuerySet:
    """Each metric with its source and how many outputs it scores, by name."""
    return (
        MetricScore.objects.filter(project=project)
        .values("name", "source")
        .annotate(n_outputs=Count("id"))
        .order_by("name", "source")
    )


def metric_score_list(project: Project, *, name: str | None = None, system: str | None = None) -> QuerySet:
    scores = MetricScore.objects.filter(project=project).select_related("output__item").order_by("id")
    if name:
        scores = scores.filter(name=name)
    if system:
        scores = scores.filter(output__system=system)
    return scores


def judge_list_for_project(project: Project) -> QuerySet:
    return Judge.objects.filter(project=project).annotate(n_ratings=Count("ratings")).order_by("name")


def output_table(project: Project, *, include_gold: bool = False) -> list[tuple[int, str, str]]:
    """(output id, item external id, system) of every output, gold items left out by default."""
    outputs = Output.objects.filter(item__project=project)
    if not include_gold:
        outputs = outputs.filter(item__gold__isnull=True)
    return list(
        outputs.order_by("item_id", "position")
        .values_list("id", "item__external_id", "system")
        .iterator(chunk_size=20_000)
    )


def metric_matrix(project: Project, names: list[str], items: list, systems: list) -> dict[str, np.ndarray]:
    """``{name: (n_items, n_systems) array}`` of metric scores, NaN where an output has none."""
    item_index = {item: i for i, item in enumerate(items)}
    system_index = {system: s for s, system in enumerate(systems)}
    out = {name: np.full((len(items), len(systems)), np.nan) for name in names}
    rows = (
        MetricScore.objects.filter(project=project, name__in=names, value__isnull=False)
        .values_list("name", "output__item__external_id", "output__system", "value")
        .iterator(chunk_size=20_000)
    )
    for name, item, system, value in rows:
        i, s = item_index.get(item), system_index.get(system)
        if i is not None and s is not None:
            out[name][i, s] = value
    return out


def metric_system_summaries(project: Project, names: list[str] | None = None) -> list[dict]:
    """Per metric and system, dialog-eval's summary of the outputs' scores (gold items left out):
    ``{metric, system, n, mean, std, confidence}`` (see ``evaluation.metrics.dialog.dialog_summary``)."""
    from evaluation.metrics.dialog import dialog_summary

    scores = MetricScore.objects.filter(project=project, output__item__gold__isnull=True)
    if names:
        scores = scores.filter(name__in=names)
    values: dict = {}
    for name, system, value in scores.values_list("name", "output__system", "value").order_by("name", "output__system"):
        values.setdefault((name, system), []).append(value)
    return [{"metric": name, "system": system, **dialog_summary(v).__dict__} for (name, system), v in values.items()]


def calibrator_summaries(project: Project) -> list[dict]:
    """Each saved calibrator's held-out evaluation: per correlation method the calibrated score's
    and the best single metric's correlation with the humans, the gain, and the gain's bootstrap
    p-value and interval (None for a calibrator fitted without resampling)."""
    rows = []
    for calibrator in Calibrator.objects.filter(project=project).select_related("criterion").order_by("name"):
        report = calibrator.report
        best = report.get("best_single")
        rows.append(
            {
                "name": calibrator.name,
                "criterion": calibrator.criterion.name,
                "metrics": list(calibrator.params.get("features", [])),
                "best_single": best,
                "n_calibration": report.get("n_calibration"),
                "n_held_out": report.get("n_held_out"),
                "k_folds": report.get("k_folds"),
                "n_resamples": report.get("n_resamples", 0),
                "methods": [
                    {
                        "method": method,
                        "calibrated": value,
                        "best_single": report["single"][best][method],
                        "gain": report["gain"][method],
                        "gain_p_value": report.get("gain_p_value", {}).get(method),
                        "gain_ci": report.get("gain_ci", {}).get(method, [None, None]),
                    }
                    for method, value in report.get("held_out", {}).items()
                ],
            }
        )
    return rows
