"""Rater models fitted on a project's current included judgments, one criterion at a time: Dawid–Skene and
MACE where the criterion's answers are categories, the Gaussian bias-and-noise model where they are numbers
on a scale (both for a Likert scale), each beside the majority vote and the mean."""

from collections.abc import Callable

import numpy as np

from annotation.models import Criterion, Judgment, Project
from annotation.task_types import REGISTRY
from evaluation.selectors import rating_frame
from evaluation.selectors.export import rater_pseudonyms
from evaluation.stats import InsufficientDataError, dawid_skene, gaussian_rater_model, mace, vote_shares

from ._common import generator, num, rater_unit_matrix

CATEGORICAL_LEVELS = ("nominal", "ordinal")


def is_categorical(task_type: str) -> bool:
    return REGISTRY[task_type].level_of_measurement in CATEGORICAL_LEVELS


def _models_for(level: str, criterion: Criterion) -> tuple[bool, bool]:
    """(categorical, scale): a scale model wherever the answers are numbers on the criterion's scale."""
    categorical = level in CATEGORICAL_LEVELS
    return categorical, not categorical or criterion.scale_min is not None


def criterion_categories(criterion: Criterion, values) -> list[float]:
    """The declared scale points of an integer scale, else the values given (pairwise outcomes)."""
    values = np.asarray(values, dtype=float)
    if criterion.scale_min is not None and criterion.scale_max is not None:
        declared = np.arange(criterion.scale_min, criterion.scale_max + 1)
        if np.isin(values, declared).all():
            return declared.tolist()
    return sorted(set(values.tolist()))


def _majority(shares: np.ndarray, categories: list[float]) -> list[float | None]:
    """The most given category of each unit; None for a tie."""
    out = []
    for row in shares:
        top = np.flatnonzero(np.isclose(row, row.max()))
        out.append(float(categories[top[0]]) if len(top) == 1 else None)
    return out


def _empty(name: str, error: str | None = None) -> dict:
    return {
        "criterion": name,
        "n_judgments": 0,
        "n_units": 0,
        "n_raters": 0,
        "models": [],
        "categories": None,
        "raters": [],
        "units": [],
        "summary": {},
        "error": error,
    }


def _criterion_report(frame, criterion: Criterion, project: Project, names: dict[int, str], seed: int) -> dict:
    task_type = REGISTRY[project.task_type]
    categorical, scale = _models_for(task_type.level_of_measurement, criterion)
    raters = sorted(set(frame.rater.tolist()), key=lambda r: names.get(r, str(r)))
    data, units = rater_unit_matrix(frame, raters)
    out = _empty(criterion.name) | {
        "n_judgments": len(frame),
        "n_units": len(units),
        "n_raters": len(raters),
        "raters": [
            {"rater": names.get(r, str(r)), "n_judgments": int((~np.isnan(data[k])).sum())}
            for k, r in enumerate(raters)
        ],
        "units": [
            {"item": item, "system": system, "n_ratings": int((~np.isnan(data[:, k])).sum())}
            for k, (item, system) in enumerate(units)
        ],
    }
    try:
        if categorical:
            _add_categorical(out, data, criterion, task_type, frame, seed)
        if scale:
            _add_scale(out, data)
    except InsufficientDataError as exc:
        out["error"] = str(exc)
    return out


def _add_categorical(out: dict, data: np.ndarray, criterion: Criterion, task_type, frame, seed: int) -> None:
    categories = criterion_categories(criterion, frame.value)
    _, shares = vote_shares(data, categories=categories)
    majority = _majority(shares, categories)
    fits = {
        "dawid_skene": dawid_skene(data, categories=categories),
        "mace": mace(data, categories=categories, rng=generator(seed)),
    }
    out["categories"] = [{"value": c, "name": task_type.category_name(c, criterion)} for c in categories]
    untied = [k for k, m in enumerate(majority) if m is not None]
    for name, fit in fits.items():
        out["models"].append(name)
        out["summary"][name] = {
            "converged": fit.converged,
            "n_iter": fit.n_iter,
            "priors": [num(p) for p in fit.priors],
            "agrees_with_majority": num(np.mean([fit.labels[k] == majority[k] for k in untied])) if untied else None,
            "majority_ties": len(majority) - len(untied),
        }
        for k, rater in enumerate(out["raters"]):
            rater[name] = {
                "competence": num(fit.competence[k]),
                "confusion": [[num(p) for p in row] for row in fit.confusions[k]],
            }
        for k, unit in enumerate(out["units"]):
            unit[name] = {"label": float(fit.labels[k]), "posterior": [num(p) for p in fit.posteriors[k]]}
    for k, unit in enumerate(out["units"]):
        unit["majority"] = majority[k]
        unit["soft_label"] = [num(p) for p in shares[k]]


def _add_scale(out: dict, data: np.ndarray) -> None:
    fit = gaussian_rater_model(data)
    out["models"].append("gaussian")
    out["summary"]["gaussian"] = {
        "converged": fit.converged,
        "n_iter": fit.n_iter,
        "mean_abs_change": num(np.nanmean(np.abs(fit.adjusted - fit.means))),
    }
    for k, rater in enumerate(out["raters"]):
        rater["gaussian"] = {"bias": num(fit.bias[k]), "noise_sd": num(fit.noise_sd[k])}
    for k, unit in enumerate(out["units"]):
        unit["mean"] = num(fit.means[k])
        unit["gaussian"] = {"score": num(fit.adjusted[k]), "se": num(fit.adjusted_se[k])}


def rater_models_report(
    *,
    project: Project,
    criterion: str | None = None,
    seed: int = 0,
    raters: frozenset[int] | None = None,
    progress: Callable[[float, float, str], None] | None = None,
) -> dict:
    """Rater models of every criterion (or the one named) of the project, raters under their export
    pseudonyms; of ``raters`` (user ids) only when given; ``progress(done, total, message)`` told after each
    criterion. Raises ValueError for an unknown criterion."""
    criteria = list(project.criteria.order_by("position", "id"))
    if criterion is not None:
        criteria = [c for c in criteria if c.name == criterion]
        if not criteria:
            raise ValueError(f"unknown criterion {criterion!r}")
    frame = rating_frame(project, criterion=criterion)
    if raters is not None:
        frame = frame.where(np.isin(frame.rater, sorted(raters)))
    last = Judgment.objects.filter(project=project).order_by("-id").values_list("id", flat=True).first() or 0
    names = rater_pseudonyms(project, max_judgment_id=last)
    reports = []
    for k, c in enumerate(criteria):
        reports.append(
            _criterion_report(frame.for_criterion(c.name), c, project, names, seed)
            if len(frame.for_criterion(c.name))
            else _empty(c.name, "no judgments on this criterion yet")
        )
        if progress is not None:
            progress(k + 1, len(criteria), f"fitted the rater models of {c.name}")
    return {"project": project.id, "task_type": project.task_type, "seed": seed, "criteria": reports}
