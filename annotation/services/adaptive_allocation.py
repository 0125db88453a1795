"""Adaptive allocation of a pairwise or best–worst study: the pair (or tuple) of systems on a rater's next screen
is drawn with probabilities that favour the comparisons the lead's target needs
(evaluation.stats.allocation_probabilities, tuple_allocation_probabilities), and every judgment keeps the
probability its pair or tuple was drawn with, so that the results can weight it back (inverse-probability
weighting, or the unweighted fit the allocation then optimises for: the settings' ``weighting``). The task type's
``adaptive_unit`` says which it draws.

- The settings are the task type's (``task_config["adaptive"]``, annotation.task_types.adaptive), changed
  while the study runs through adaptive_config_update.
- The probabilities are computed by a debounced job (evaluation.services.adaptive_refresh, a beat entry, at
  most once per ``refresh_every`` new judgments) and cached in AdaptiveAllocationState; a ``next`` call only
  reads them.
- On ``next`` (adaptive_draw) the pair (tuple) is drawn among those that have an item open to the rater, with
  the cached probabilities restricted to them and renormalised: that renormalised probability is the one the
  screen was drawn with, and the one recorded (on every judgment of the screen). Pairs or tuples the cache does
  not know yet (new systems, new tuples) count as the reference design's share. The draw runs before the
  screen's kind is known, for control screens too, so that a control costs what a work screen costs; control
  items (gold, repeats, degraded copies) are never among those drawn from, and their screens record no probability.
- The reference design is uniform over the pairs of the project's systems (over the distinct tuples of its work
  items); the allocation's fit reads the current judgments of the project's first criterion, work screens and
  imported lines only.
"""

import random
from dataclasses import dataclass

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import AdaptiveAllocationState, Project
from annotation.selectors.adaptive import work_item_units
from annotation.task_types import REGISTRY, TaskTypeError
from annotation.task_types.adaptive import adaptive_settings
from audit.services import audit_record

DESIGN_CONFLICT = (
    "adaptive allocation draws each screen's pair (or tuple) of systems itself; it does not combine with a "
    "design of places (planned raters or a maximum of screens per rater): clear those first"
)


@dataclass(frozen=True)
class Draw:
    """The pair or tuple of systems drawn for a screen (names sorted) and the probability it was drawn with."""

    systems: tuple[str, ...]
    probability: float


@transaction.atomic
def adaptive_config_update(*, project: Project, changes: dict, by) -> dict:
    """Changes the fields of the project's ``task_config`` that its task type lets change while the study runs
    (a null removes one); returns the new task_config. Raises ValidationError naming the field."""
    task_type = REGISTRY[project.task_type]
    unknown = sorted(set(changes) - set(task_type.live_config_fields))
    if unknown:
        allowed = ", ".join(task_type.live_config_fields) or "none"
        raise ValidationError(
            {name: f"not a setting a {task_type.slug} project may change now; it takes {allowed}" for name in unknown}
        )
    project = Project.objects.select_for_update().get(pk=project.pk)
    merged = {k: v for k, v in {**(project.task_config or {}), **changes}.items() if v is not None}
    try:
        config = task_type.normalise_config(merged)
    except TaskTypeError as exc:
        raise ValidationError({"task_config": str(exc)}) from exc
    if adaptive_settings(config) is not None:
        if task_type.adaptive_unit is None:
            raise ValidationError({"adaptive": f"a {task_type.slug} project does not allocate its screens adaptively"})
        if project.planned_raters or project.max_screens_per_rater:
            raise ValidationError({"adaptive": DESIGN_CONFLICT})
    before = project.task_config or {}
    project.task_config = config
    project.save(update_fields=["task_config"])
    audit_record(
        actor=by,
        action="task_config.update",
        project=project,
        target=project.name,
        detail={"before": {k: before.get(k) for k in changes}, "after": {k: config.get(k) for k in changes}},
    )
    return config


def adaptive_design_check(project: Project) -> None:
    """Raises ValidationError when the project allocates adaptively and would get a design of places."""
    if adaptive_settings(project.task_config) is not None and (project.planned_raters or project.max_screens_per_rater):
        raise ValidationError(
            {"planned_raters" if project.planned_raters else "max_screens_per_rater": DESIGN_CONFLICT}
        )


def adaptive_draw(*, project: Project, rater_id: int, rng: random.Random) -> Draw | None:
    """The pair or tuple of systems for the rater's next screen, drawn among those with an item open to them, and
    its probability; None when the project does not allocate adaptively or nothing is open."""
    unit = REGISTRY[project.task_type].adaptive_unit
    if unit is None or adaptive_settings(project.task_config) is None:
        return None
    available = work_item_units(project.pk, unit, open_to_rater=rater_id)
    if not available:
        return None
    cached = AdaptiveAllocationState.objects.filter(project_id=project.pk).values_list("probabilities", flat=True)
    # a cached row: the systems (sorted), then the probability
    known = {tuple(sorted(row[:-1])): row[-1] for row in (cached.first() or [])}
    reference = 1 / len(known) if known else 1.0
    weights = np.array([known.get(systems, reference) for systems in available])
    shares = weights / weights.sum()
    index = min(int(np.searchsorted(np.cumsum(shares), rng.random() * shares.sum(), side="right")), len(shares) - 1)
    return Draw(available[index], float(shares[index]))
