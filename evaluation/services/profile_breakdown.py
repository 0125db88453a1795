"""Results and agreement broken down by a rater profile field, and results post-stratified to the target shares
of its values the lead gives: the results and agreement of the raters with each value, computed by the same
services as the whole project's."""

import math
from typing import Any

import numpy as np

from agreement.stats import InsufficientDataError as AgreementDataError
from agreement.stats import krippendorff_alpha
from annotation.models import Project
from annotation.selectors.profiles import profile_fields, profile_values
from annotation.task_types import REGISTRY
from annotation.task_types.facts import SCORED
from evaluation.selectors import rating_frame
from evaluation.stats import InsufficientDataError, post_stratified_means

from ._common import generator, interval, num, rater_unit_matrix
from .error_span_results import ErrorSpanCriterion
from .pairwise_results import PairwiseCriterion
from .rater_models import rater_models_report
from .results import ResultOptions, results_compute
from .scored_results import ScoredCriterion


def _field_check(project: Project, field: str) -> None:
    names = [f.name for f in profile_fields(project)]
    if field not in names:
        raise ValueError(
            f"field must be one of the project's profile fields ({', '.join(names) or 'none'}), got {field!r}"[:300]
        )


def _groups(project: Project, field: str) -> dict[str, frozenset[int]]:
    """Profile value (as text) → the raters who gave it."""
    groups: dict[str, set[int]] = {}
    for rater, value in profile_values(project, field).items():
        groups.setdefault(value if isinstance(value, str) else f"{value:g}", set()).add(rater)
    return {value: frozenset(raters) for value, raters in sorted(groups.items())}


def _agreement(frame, level: str) -> dict:
    """Krippendorff's alpha at the task type's level of the raters in ``frame``, or why there is none."""
    raters = sorted(set(frame.rater.tolist()))
    data, units = rater_unit_matrix(frame, raters)
    try:
        value = krippendorff_alpha(data, level_of_measurement=level)
    except AgreementDataError as exc:
        return {
            "statistic": f"krippendorff_alpha_{level}",
            "value": None,
            "n_units": len(units),
            "n_raters": len(raters),
            "error": str(exc),
        }
    return {
        "statistic": f"krippendorff_alpha_{level}",
        "value": num(value),
        "n_units": len(units),
        "n_raters": len(raters),
        "error": None,
    }


def _as_json(results: dict) -> dict:
    """The results as JSON data, in the form the breakdown has answered them in since before they were typed."""
    return results | {"criteria": [_criterion_json(c) for c in results["criteria"]]}


def _criterion_json(criterion: ErrorSpanCriterion | PairwiseCriterion | ScoredCriterion) -> dict:
    return criterion.to_json()


def profile_breakdown(
    *, project: Project, field: str, options: ResultOptions | None = None, rater_models: bool = False
) -> dict:
    """Per value of the profile field: how many raters gave it, the results of their judgments, their
    agreement per criterion and, with ``rater_models``, the rater models fitted on their judgments alone.
    Raises ValueError for an unknown field or bad options."""
    _field_check(project, field)
    level = REGISTRY[project.task_type].agreement.level
    frame = rating_frame(project)
    out = []
    for value, raters in _groups(project, field).items():
        mine = frame.where(np.isin(frame.rater, sorted(raters)))
        row = {
            "value": value,
            "n_raters": len(raters),
            "results": _as_json(results_compute(project=project, options=options, raters=raters)),
            "agreement": [{"criterion": c} | _agreement(mine.for_criterion(c), level) for c in frame.criteria],
        }
        if rater_models:
            seed = (options or ResultOptions()).seed
            row["rater_models"] = rater_models_report(project=project, seed=seed, raters=raters)["criteria"]
        out.append(row)
    return {"field": field, "values": out}


def _target_check(target, values: list[str]) -> dict[str, float]:
    if not isinstance(target, dict) or not target:
        raise ValueError("target must map each value of the field to its share")
    unknown = sorted(set(target) - set(values))
    if unknown:
        raise ValueError(f"target names values no rater gave: {', '.join(map(str, unknown))}"[:300])
    shares = {}
    for value, share in target.items():
        if isinstance(share, bool) or not isinstance(share, int | float) or not math.isfinite(share) or share < 0:
            raise ValueError(f"target share of {value!r} must be a non-negative number, got {share!r}"[:300])
        shares[value] = float(share)
    total = sum(shares.values())
    if not math.isclose(total, 1.0, abs_tol=1e-6):
        raise ValueError(f"target shares must sum to 1, they sum to {total:g}")
    return {value: shares.get(value, 0.0) for value in values}


def post_stratified_results(
    *, project: Project, field: str, target: dict, options: ResultOptions | None = None
) -> dict:
    """Per criterion, each system's mean re-weighted so that raters of each value of ``field`` count with its
    ``target`` share (a value left out counts 0), with cluster-bootstrap intervals over items, beside the raw
    mean. Scored task types only (system means). Raises ValueError for bad input."""
    _field_check(project, field)
    if REGISTRY[project.task_type].results.kind != SCORED:
        raise ValueError("post-stratification re-weights system means: this task type's results are not means")
    options = (options or ResultOptions()).checked(project)
    groups = _groups(project, field)
    weights = _target_check(target, list(groups))
    stratum_of = {rater: value for value, raters in groups.items() for rater in raters}
    frame = rating_frame(project)
    frame = frame.where(np.isin(frame.rater, sorted(stratum_of)))
    criteria = []
    for name in frame.criteria:
        mine = frame.for_criterion(name)
        row: dict[str, Any] = {"criterion": name, "systems": [], "error": None}
        try:
            means = post_stratified_means(
                mine.value,
                systems=mine.system,
                strata=[stratum_of[r] for r in mine.rater.tolist()],
                units=mine.item,
                weights=weights,
                confidence=options.confidence,
                n_resamples=options.n_resamples,
                rng=generator(options.seed),
            )
        except InsufficientDataError as exc:
            row["error"] = str(exc)
        else:
            row["systems"] = [
                {
                    "system": m.system,
                    "estimate": num(m.estimate),
                    "ci": interval(*m.ci),
                    "raw_mean": num(m.raw_mean),
                    "n": m.n,
                    "stratum_means": m.stratum_means,
                    "n_resamples_used": m.n_resamples_used,
                }
                for m in sorted(means, key=lambda m: -m.estimate)
            ]
        criteria.append(row)
    return {
        "field": field,
        "target": weights,
        "confidence": options.confidence,
        "n_resamples": options.n_resamples,
        "criteria": criteria,
    }
