"""The allocation probabilities of adaptive pairwise and best–worst studies (annotation.services.adaptive_allocation
draws from them): fitted from the judgments so far, cached in AdaptiveAllocationState, refreshed by a debounced
sweep so that the rater loop never fits anything."""

from collections import Counter
from datetime import datetime
from itertools import combinations

import numpy as np
from django.utils import timezone

from annotation.models import AdaptiveAllocationState, Assignment, Criterion, Judgment, Output, Project
from annotation.selectors import included_judgments
from annotation.selectors.adaptive import work_item_units
from annotation.task_types import REGISTRY
from annotation.task_types.adaptive import PAIRS, AdaptiveSettings, adaptive_settings
from evaluation.stats import allocation_probabilities, tuple_allocation_probabilities


def adaptive_probabilities_refresh(*, project: Project, now: datetime | None = None) -> AdaptiveAllocationState | None:
    """Computes the project's allocation probabilities from its judgments so far and caches them; None (and
    nothing cached) when the project does not allocate adaptively. The judgments are those the results count
    (no excluded rater's, no control's), on the project's first criterion, the one the allocation serves."""
    settings = adaptive_settings(project.task_config)
    unit = REGISTRY[project.task_type].adaptive_unit
    if settings is None or unit is None:
        return None
    units = work_item_units(project.pk, unit)
    systems = sorted({s for drawn in units for s in drawn})
    criterion = Criterion.objects.filter(project=project).order_by("position", "id").first()
    rows = (
        list(
            included_judgments(project)
            .filter(criterion=criterion)
            .exclude(assignment__served_as__in=[k for k in Assignment.ServedAs.values if k != Assignment.ServedAs.WORK])
            .values_list("id", "output__system", "output__item_id", "value", "sampling_probability", "rater_id")
        )
        if criterion is not None
        else []
    )
    state, _ = AdaptiveAllocationState.objects.get_or_create(project=project)
    if len(systems) < 2:
        state.probabilities = []
    elif unit == PAIRS:
        state.probabilities = _probabilities(project, systems, rows, settings)
    else:
        state.probabilities = _tuple_probabilities(units, rows, settings)
    state.n_judgments = len(rows)
    state.judgments_through = max((r[0] for r in rows), default=0)
    state.computed_at = now or timezone.now()
    state.save()
    return state


def _probabilities(project, systems, rows, settings: AdaptiveSettings) -> list:
    code = {s: i for i, s in enumerate(systems)}
    k, pairs = len(systems), list(combinations(range(len(systems)), 2))
    second = dict(Output.objects.filter(item__project=project, position=1).values_list("item_id", "system"))
    # a judgment without a recorded probability (imported, or served before adaptive allocation) is taken as
    # drawn from the reference design, uniform over the pairs
    kept = [
        (code[s], code[second[item]], value, 1 / len(pairs) if p is None else p)
        for _, s, item, value, p, _ in rows
        if s in code and second.get(item) in code
    ]
    first, other, outcome, probability = (
        np.array(c).reshape(len(kept))
        for c in ([r[0] for r in kept], [r[1] for r in kept], [r[2] for r in kept], [r[3] for r in kept])
    )
    top_k = min(settings.top_k, k - 1) if settings.top_k else None
    allocation = allocation_probabilities(
        k,
        first.astype(int),
        other.astype(int),
        outcome.astype(float),
        probability.astype(float),
        target=settings.target,
        top_k=top_k,
        cold_start=settings.cold_start,
        floor=settings.floor,
        weighting=settings.weighting,
    )
    return [[systems[a], systems[b], float(p)] for (a, b), p in zip(pairs, allocation, strict=True)]


def _tuple_probabilities(candidates: list[tuple[str, ...]], rows, settings: AdaptiveSettings) -> list:
    """[*systems, probability] per distinct tuple of the work items (of their most common size): the draw's
    reference design is uniform over them. Each rater's whole answer to a tuple (one best, one worst) is one
    judgment of the fit; one without a recorded probability counts as drawn from the reference design."""
    k = Counter(len(c) for c in candidates).most_common(1)[0][0]
    candidates = [c for c in candidates if len(c) == k]
    systems = sorted({s for c in candidates for s in c})
    code = {s: i for i, s in enumerate(systems)}
    screens: dict[tuple[int, int], list] = {}
    for _, system, item, value, probability, rater in rows:
        screens.setdefault((rater, item), []).append((system, value, probability))
    tuples, best, worst, drawn = [], [], [], []
    for answers in screens.values():
        picked = {value: system for system, value, _ in answers if value in (1.0, -1.0)}
        if len(answers) != k or len(picked) != 2 or any(system not in code for system, _, _ in answers):
            continue
        tuples.append(sorted(code[system] for system, _, _ in answers))
        best.append(code[picked[1.0]])
        worst.append(code[picked[-1.0]])
        probability = answers[0][2]
        drawn.append(1 / len(candidates) if probability is None else probability)
    allocation = tuple_allocation_probabilities(
        len(systems),
        np.array([[code[s] for s in c] for c in candidates], dtype=int),
        np.array(tuples, dtype=int).reshape(len(tuples), k),
        np.array(best, dtype=int),
        np.array(worst, dtype=int),
        np.array(drawn, dtype=float),
        target=settings.target,
        top_k=min(settings.top_k, len(systems) - 1) if settings.top_k else None,
        cold_start=settings.cold_start,
        floor=settings.floor,
        weighting=settings.weighting,
    )
    return [[*c, float(p)] for c, p in zip(candidates, allocation, strict=True)]


def adaptive_refresh_stale(*, now: datetime | None = None) -> int:
    """Refreshes the probabilities of every adaptive project (not archived) with at least ``refresh_every``
    judgments newer than those its cache saw, or none cached yet; returns how many it refreshed. The debounce
    of adaptive allocation: the beat runs it every minute, and the rater loop never fits anything."""
    refreshed = 0
    for project in Project.objects.filter(archived_at__isnull=True, task_config__has_key="adaptive"):
        settings = adaptive_settings(project.task_config)
        if settings is None:  # the key kept with no settings: adaptive allocation is off
            continue
        state = AdaptiveAllocationState.objects.filter(project=project).first()
        through = state.judgments_through if state else 0
        newer = Judgment.objects.filter(project=project, id__gt=through)
        if state is None or newer[settings.refresh_every - 1 : settings.refresh_every].exists():
            adaptive_probabilities_refresh(project=project, now=now)
            refreshed += 1
    return refreshed
