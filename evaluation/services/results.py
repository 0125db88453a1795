"""System-level results of a project: per-system scores with intervals and significance (likert,
rankme; best–worst counting scores with MaxDiff strengths and split-half reliability: ``best_worst_results``),
win/tie/lose tables, sign tests and Bradley–Terry strengths (pairwise: ``pairwise_results``), error-span scores
and WMT's ranking (esa, mqm: ``error_span_results``)."""

from dataclasses import asdict
from typing import Any

import numpy as np

from annotation.models import Criterion, Item, Project
from annotation.selectors.error_spans import span_ratings
from annotation.task_types import REGISTRY
from annotation.task_types.facts import COMPARED, ERROR_SPANS
from evaluation.selectors import exclusion_counts, pairwise_frame, rating_frame, retired_item_counts
from evaluation.selectors.ratings import turn_means

from .error_span_results import ErrorSpanCriterion, SpanResultOptions, SpanScoring, error_span_criterion
from .pairwise_results import pairwise_criterion
from .result_options import CheckedResultOptions, ResultOptions
from .scored_results import scored_criterion
from .vote_results import vote_results


def results_compute(
    *, project: Project, options: ResultOptions | None = None, raters: frozenset[int] | None = None
) -> dict:
    """Results of every criterion of the project, from the included judgments only (see
    ``evaluation.selectors.included_judgments``), of ``raters`` (user ids) only when given. Raises ValueError
    for bad options."""
    checked = (options or ResultOptions()).checked(project)
    body: dict[str, Any] = {
        "project": project.id,
        "task_type": project.task_type,
        "options": asdict(checked),
        "excluded": exclusion_counts(project),
        "retired": retired_item_counts(project),
    }
    kind = REGISTRY[project.task_type].results.kind
    if kind == ERROR_SPANS:
        body["criteria"] = _error_span_criteria(project, checked, raters)
        body["n_judgments"] = sum(c.n_judgments for c in body["criteria"])
        return body
    if kind == COMPARED:
        pairs = pairwise_frame(project)
        if raters is not None:
            pairs = pairs.where(np.isin(pairs.rater, sorted(raters)))
        body["criteria"] = [
            pairwise_criterion(
                pairs.for_criterion(c),
                c,
                aggregate=checked.aggregate,
                weighting=checked.weighting,
                ties=checked.ties,
                alpha=checked.alpha,
                confidence=checked.confidence,
                n_resamples=checked.n_resamples,
                seed=checked.seed,
            )
            for c in pairs.criteria
        ]
        if raters is None:
            # Imported votes are ranked apart from the judgments (a finished study's; see VoteImport).
            body["votes"] = vote_results(
                project=project,
                ties=checked.ties,
                confidence=checked.confidence,
                n_resamples=checked.n_resamples,
                seed=checked.seed,
                weighting=checked.weighting,
            )
        body["n_judgments"] = len(pairs)
        return body
    ratings = rating_frame(project)
    if raters is not None:
        ratings = ratings.where(np.isin(ratings.rater, sorted(raters)))
    results = REGISTRY[project.task_type].results
    body["criteria"] = [scored_criterion(ratings.for_criterion(c), c, results, checked) for c in ratings.criteria]
    if project.rating_unit != Project.RatingUnit.CONVERSATION:
        body["turns"] = turn_means(project, raters=raters)
    body["n_judgments"] = len(ratings)
    return body


def span_scoring(project: Project) -> SpanScoring:
    """How the project's task type scores spans, with the weights of the project's settings."""
    task_type = REGISTRY[project.task_type]
    config = project.task_config or {}
    weight = task_type.span_weigher(config)
    return SpanScoring(task_type.results.higher_is_better, weight, config.get("weights") if weight else None)


def _error_span_criteria(
    project: Project, options: CheckedResultOptions, raters: frozenset[int] | None
) -> list[ErrorSpanCriterion]:
    scoring = span_scoring(project)
    span_options = SpanResultOptions(
        confidence=options.confidence,
        n_resamples=options.n_resamples,
        seed=options.seed,
        alpha=options.alpha,
        segments=options.segments,
    )
    names = None
    if options.segments:
        names = dict(Item.objects.filter(project=project).values_list("id", "external_id").iterator(chunk_size=20_000))
    criteria = []
    for criterion_id, name in (
        Criterion.objects.filter(project=project).order_by("position", "id").values_list("id", "name")
    ):
        ratings = span_ratings(project.id, criterion_id=criterion_id, included_only=True)
        if raters is not None:
            ratings = ratings.of_raters(raters)
        criteria.append(error_span_criterion(ratings, name, scoring, span_options, names))
    return criteria
