"""Metric–human correlations of a project per criterion, metric, level and method."""

from annotation.models import Project
from annotation.task_types import REGISTRY
from annotation.task_types.facts import SCORED
from evaluation.selectors import metric_matrix, metric_names_for_project, rating_frame
from evaluation.stats import KENDALL_VARIANT, InsufficientDataError, correlation
from evaluation.stats.correlation import LEVELS, METHODS

from ._common import MAX_RESAMPLES, default_normalisation, generator, human_matrix, normalised_values, num


class NotCorrelatable(ValueError):
    """The project's judgments give no per-output human score (pairwise projects)."""


def metric_correlations(
    *,
    project: Project,
    criteria=None,
    metrics=None,
    levels=LEVELS,
    methods=METHODS,
    systems=None,
    exclude_systems=(),
    normalisation=None,
    confidence=0.95,
    n_resamples=1000,
    seed=0,
) -> dict:
    """Correlation of every metric with every criterion's human score (the mean rating of each
    output), at each level and with each method. ``systems`` / ``exclude_systems`` choose the
    systems compared (HANNA, for one, leaves its Human stories out)."""
    if REGISTRY[project.task_type].results.kind != SCORED:
        raise NotCorrelatable(f"{project.task_type} judgments give no score per output to correlate metrics with")
    if not 0 <= n_resamples <= MAX_RESAMPLES:
        raise ValueError(f"n_resamples must be from 0 to {MAX_RESAMPLES}")
    for level in levels:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; levels are {', '.join(LEVELS)}")
    for method in methods:
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}; methods are {', '.join(METHODS)}")
    normalisation = normalisation or default_normalisation(project)
    frame = rating_frame(project)
    criteria = list(criteria or frame.criteria)
    unknown = sorted(set(criteria) - set(frame.criteria))
    if unknown:
        raise ValueError(f"unknown criterion {', '.join(map(repr, unknown))}; criteria are {', '.join(frame.criteria)}")
    available = sorted({row["name"] for row in metric_names_for_project(project)})
    metrics = list(metrics or available)
    missing = sorted(set(metrics) - set(available))
    if missing:
        raise ValueError(f"no scores for metric {', '.join(map(repr, missing))}; scored: {', '.join(available)}")
    chosen = sorted(set(systems or frame.system.tolist()) - set(exclude_systems))
    rows = []
    for name in criteria:
        part = frame.for_criterion(name)
        items, chosen_systems, human = human_matrix(part, normalised_values(part, normalisation), systems=chosen)
        scores = metric_matrix(project, metrics, items, chosen_systems)
        for metric in metrics:
            for level in levels:
                for method in methods:
                    try:
                        r = correlation(
                            human,
                            scores[metric],
                            method=method,
                            level=level,
                            confidence=confidence,
                            n_resamples=n_resamples,
                            rng=generator(seed),
                        )
                    except InsufficientDataError as exc:
                        rows.append(
                            {
                                "metric": metric,
                                "criterion": name,
                                "level": level,
                                "method": method,
                                "label": None,
                                "value": None,
                                "ci_low": None,
                                "ci_high": None,
                                "n": 0,
                                "error": str(exc),
                            }
                        )
                        continue
                    rows.append(
                        {
                            "metric": metric,
                            "criterion": name,
                            "level": level,
                            "method": method,
                            "label": r.label,
                            "value": num(r.value),
                            "ci_low": num(r.ci_low),
                            "ci_high": num(r.ci_high),
                            "n": r.n,
                            "error": None,
                        }
                    )
    return {
        "criteria": criteria,
        "metrics": metrics,
        "systems": chosen,
        "normalisation": normalisation,
        "kendall_variant": KENDALL_VARIANT,
        "confidence": confidence,
        "n_resamples": n_resamples,
        "seed": seed,
        "rows": rows,
    }
