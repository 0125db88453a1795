"""Fit metric calibrators on a calibration split, save them, and apply them to outputs."""

import numpy as np
from django.db import transaction
from django.utils import timezone

from annotation.models import Criterion, Output, Project
from annotation.task_types import REGISTRY
from annotation.task_types.facts import SCORED
from audit.services import audit_record
from core.bulk_insert import insert_rows
from evaluation.models import Calibrator, MetricScore
from evaluation.selectors import metric_matrix, metric_names_for_project, rating_frame
from evaluation.stats import Calibrator as FittedCalibrator
from evaluation.stats import calibrate

from ._common import default_normalisation, generator, human_matrix, normalised_values
from .correlations import NotCorrelatable


@transaction.atomic
def calibrator_fit(
    *,
    project: Project,
    name: str,
    criterion: str,
    metrics: list[str],
    alpha: float = 1.0,
    held_out_share: float = 0.3,
    k_folds: int | None = None,
    seed: int = 0,
    systems=None,
    exclude_systems=(),
    normalisation: str | None = None,
    n_resamples: int = 1000,
    created_by=None,
) -> Calibrator:
    """Fit (or refit, under the same name) a calibrator of ``metrics`` for ``criterion``.

    Items are split (or folded) at random with ``seed``; the report stored with the calibrator
    holds the weights, the held-out correlations, the gain over the best single metric and the
    gain's bootstrap p-value and interval over ``n_resamples`` resamples of the held-out items.
    """
    if REGISTRY[project.task_type].results.kind != SCORED:
        raise NotCorrelatable(f"{project.task_type} judgments give no score per output to calibrate metrics against")
    target = Criterion.objects.filter(project=project, name=criterion).first()
    if target is None:
        raise ValueError(f"criterion {criterion!r} is not in this project")
    available = {row["name"] for row in metric_names_for_project(project)}
    missing = sorted(set(metrics) - available)
    if not metrics or missing:
        raise ValueError(f"give metrics with scores; not scored: {', '.join(map(repr, missing)) or 'none given'}")
    normalisation = normalisation or default_normalisation(project)
    frame = rating_frame(project, criterion=criterion)
    chosen = sorted(set(systems or frame.system.tolist()) - set(exclude_systems))
    items, chosen, human = human_matrix(frame, normalised_values(frame, normalisation), systems=chosen)
    scores = metric_matrix(project, list(metrics), items, chosen)
    features = np.column_stack([scores[m].ravel() for m in metrics])
    groups = np.repeat(np.arange(len(items)), len(chosen))
    report = calibrate(
        features,
        human.ravel(),
        names=list(metrics),
        groups=groups,
        held_out_share=held_out_share,
        k_folds=k_folds,
        alpha=alpha,
        rng=generator(seed),
        n_resamples=n_resamples,
    )
    data = report.as_dict()
    data.update(
        criterion=criterion,
        systems=chosen,
        normalisation=normalisation,
        seed=seed,
        held_out_share=None if k_folds else held_out_share,
    )
    calibrator, _ = Calibrator.objects.update_or_create(
        project=project,
        name=name,
        defaults={
            "criterion": target,
            "params": report.calibrator.as_dict(),
            "report": data,
            "created_by": created_by,
        },
    )
    audit_record(
        actor=created_by,
        action="calibrator.fit",
        project=project,
        target=name,
        detail={"criterion": criterion, "metrics": list(metrics), "seed": seed},
    )
    return calibrator


@transaction.atomic
def calibrator_apply(*, calibrator: Calibrator, by=None) -> int:
    """Score every output that has all the calibrator's metrics (new outputs included); the scores
    are stored as metric ``calibrated:<name>``. Returns the number of outputs scored."""
    fitted = FittedCalibrator.from_dict(calibrator.params)
    project = calibrator.project
    outputs = list(Output.objects.filter(item__project=project).values_list("id", "item__external_id", "system"))
    items = sorted({item for _, item, _ in outputs})
    systems = sorted({system for _, _, system in outputs})
    scores = metric_matrix(project, list(fitted.features), items, systems)
    item_index = {x: i for i, x in enumerate(items)}
    system_index = {x: s for s, x in enumerate(systems)}
    cells = [(item_index[i], system_index[s]) for _, i, s in outputs]
    rows, cols = (np.array(c, dtype=int) for c in zip(*cells, strict=True)) if cells else (np.array([], int),) * 2
    features = np.column_stack([scores[m][rows, cols] for m in fitted.features])
    predicted = fitted.predict(features)
    complete = ~np.isnan(predicted)
    MetricScore.objects.filter(project=project, name=calibrator.metric_name).delete()
    now = timezone.now()
    insert_rows(
        MetricScore,
        ["project", "output", "name", "value", "source", "updated_at"],
        [
            (project.id, oid, calibrator.metric_name, float(v), MetricScore.Source.CALIBRATED, now)
            for (oid, _, _), v, ok in zip(outputs, predicted, complete, strict=True)
            if ok
        ],
    )
    scored = int(complete.sum())
    audit_record(
        actor=by,
        action="calibrator.apply",
        project=project,
        target=calibrator.name,
        detail={"scored": scored, "metric": calibrator.metric_name},
    )
    return scored
