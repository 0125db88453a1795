"""How many items and raters a study needs: variance components from a pilot (the project's own
judgments or an imported study), a power curve by simulation, the cheapest design reaching the
target, where the study stands now, and applying the chosen raters per item to the project."""

import math
from dataclasses import asdict

import numpy as np
from django.db import transaction

from annotation.models import Criterion, Judgment, Project
from annotation.services.item_import import item_targets_replan
from annotation.task_types import REGISTRY
from annotation.task_types.facts import COMPARED
from audit.services import audit_record
from evaluation.selectors import pairwise_frame, rating_frame
from evaluation.stats import (
    COMPARISONS,
    InsufficientDataError,
    design_power,
    effect_on_item_scale,
    interim_answer,
    items_for_half_width,
    items_for_power,
    power_curve,
    variance_components,
)

from ._common import generator, num

ITEMS_GRID = (25, 50, 100, 200, 400, 800)
RATERS_GRID = (1, 2, 3, 5)
MAX_ITEMS = 20_000
MAX_SIMULATIONS = 20_000
MAX_GRID = 12
# simulated item statistics a plan may draw: about 3 s and, drawn in blocks, bounded memory
MAX_DRAWS = 100_000_000
PILOT_FIELDS = {"item", "system", "rater", "value"}


def _pilot_columns(pilot: list) -> tuple[np.ndarray, ...]:
    """(item, system, rater, value) columns of an imported pilot: one record per rating,
    ``value`` a number (pairwise: the first system's outcome, 0 loses, 0.5 tie, 1 wins)."""
    rows = []
    for line, record in enumerate(pilot, start=1):
        if not isinstance(record, dict) or set(record) != PILOT_FIELDS:
            raise ValueError(f"pilot record {line}: give exactly the fields {', '.join(sorted(PILOT_FIELDS))}")
        value = record["value"]
        if isinstance(value, bool) or not isinstance(value, int | float) or not np.isfinite(value):
            raise ValueError(f"pilot record {line}: value must be a finite number, got {value!r}")
        rows.append((str(record["item"]), str(record["system"]), str(record["rater"]), float(value)))
    if not rows:
        raise ValueError("the pilot holds no ratings")
    item, system, rater, value = (np.array(c, dtype=object) for c in zip(*rows, strict=True))
    return item, system, rater, value.astype(float), None


def _project_columns(project: Project, criterion: Criterion) -> tuple[np.ndarray, ...]:
    """(item, system, rater, value, opponent): for pairwise the system is the item's first, the
    value its outcome on the 0..1 scale of a win rate (ties half) and the opponent the second."""
    if REGISTRY[project.task_type].results.kind == COMPARED:
        f = pairwise_frame(project, criterion=criterion.name)
        return f.item, f.first, f.rater, f.outcome / 2, f.second
    f = rating_frame(project, criterion=criterion.name)
    return f.item, f.system, f.rater, f.value, None


def _item_statistics(columns, comparison: str, pair: tuple[str, str]) -> np.ndarray:
    """Per item of the pair: the humans' mean difference of the two systems, or the first one's
    outcome (1 it wins, ½ a tie, 0 it loses)."""
    item, system, _, value, opponent = columns
    means = {}
    if opponent is not None:
        for i, s, o, v in zip(item, system, opponent, value, strict=True):
            if (s, o) == pair:
                means.setdefault(i, []).append(v)
            elif (o, s) == pair:
                means.setdefault(i, []).append(1 - v)
        return np.array([np.mean(v) for v in means.values()], dtype=float)
    for i, s, v in zip(item, system, value, strict=True):
        means.setdefault((i, s), []).append(v)
    a, b = pair
    d = np.array(
        [
            np.mean(means[(i, a)]) - np.mean(means[(i, b)])
            for i in sorted({i for i, _ in means})
            if (i, a) in means and (i, b) in means
        ]
    )
    return d if comparison == "mean_difference" else 0.5 * (np.sign(d) + 1)


def study_plan(
    *,
    project: Project,
    criterion: str,
    comparison: str,
    effect: float,
    systems: list[str] | None = None,
    target_power: float = 0.8,
    alpha: float = 0.05,
    target_half_width: float | None = None,
    items_grid=ITEMS_GRID,
    raters_grid=RATERS_GRID,
    n_simulations: int = 2000,
    seed: int = 0,
    pilot: list | None = None,
    pilot_project: Project | None = None,
) -> dict:
    """The plan for detecting ``effect`` (a mean difference, a win rate or a Bradley–Terry gap
    between two systems) from this project's judgments on ``criterion``, from ``pilot`` records,
    or from the judgments of ``pilot_project`` (an earlier study of the same protocol, the caller
    having checked the user leads it); with the state of the study now when its own judgments are
    the pilot."""
    if comparison not in COMPARISONS:
        raise ValueError(f"comparison must be one of {', '.join(COMPARISONS)}")
    if REGISTRY[project.task_type].results.kind == COMPARED and comparison == "mean_difference":
        raise ValueError(f"{project.task_type} judgments give win rates: compare by win_rate or bradley_terry")
    if not 0 < target_power < 1:
        raise ValueError(f"target_power must be between 0 and 1, got {target_power!r}")
    if not 1 <= n_simulations <= MAX_SIMULATIONS:
        raise ValueError(f"n_simulations must be from 1 to {MAX_SIMULATIONS}")
    if not all(isinstance(v, int | float) and math.isfinite(v) for v in (effect, target_power, alpha)):
        raise ValueError("effect, target_power and alpha must be finite numbers")
    grid_items = sorted({int(n) for n in items_grid})
    grid_raters = sorted({int(k) for k in raters_grid})
    if len(grid_items) > MAX_GRID or len(grid_raters) > MAX_GRID:
        raise ValueError(f"give at most {MAX_GRID} item counts and {MAX_GRID} raters-per-item values")
    if not grid_items or grid_items[0] < 2 or grid_items[-1] > MAX_ITEMS:
        raise ValueError(f"items_grid must hold item counts from 2 to {MAX_ITEMS}")
    if not grid_raters or grid_raters[0] < 1 or grid_raters[-1] > 100:
        raise ValueError("raters_grid must hold raters per item from 1 to 100")
    source = pilot_project or project
    if source.task_type != project.task_type:
        raise ValueError(
            f"the pilot project is {source.task_type}, this one {project.task_type}: plan from the same protocol"
        )
    draws = n_simulations * sum(grid_items) * len(grid_raters)
    if draws > MAX_DRAWS:
        raise ValueError(
            f"the plan would simulate {draws:,} values (at most {MAX_DRAWS:,}): fewer simulations or a smaller grid"
        )
    target = Criterion.objects.filter(project=source, name=criterion).first()
    if target is None:
        raise ValueError(
            f"criterion {criterion!r} is not in {'the pilot project' if pilot_project else 'this project'}"
        )
    effect_on_item_scale(comparison, effect)
    columns = _pilot_columns(pilot) if pilot is not None else _project_columns(source, target)
    components = variance_components(columns[3], items=columns[0], systems=columns[1], raters=columns[2])
    rng = generator(seed)
    curve = power_curve(
        components,
        comparison=comparison,
        effect=effect,
        items_grid=grid_items,
        raters_grid=grid_raters,
        alpha=alpha,
        target_power=target_power,
        n_simulations=n_simulations,
        rng=rng,
    )
    out = {
        "source": "pilot" if pilot is not None else "project" if pilot_project is None else f"project {source.pk}",
        "criterion": target.name,
        "comparison": comparison,
        "effect": effect,
        "effect_on_item_scale": effect_on_item_scale(comparison, effect),
        "alpha": alpha,
        "target_power": target_power,
        "components": asdict(components),
        "points": [asdict(p) for p in curve.points],
        "recommended": asdict(curve.recommended) if curve.recommended else None,
        "half_width": None,
        "now": None,
    }
    if target_half_width is not None:
        out["half_width"] = {
            "target": target_half_width,
            "items": {
                k: items_for_half_width(
                    components, comparison=comparison, half_width=target_half_width, raters_per_item=k, alpha=alpha
                )
                for k in grid_raters
            },
        }
    if pilot is None and pilot_project is None:
        out["now"] = _study_now(project, columns, comparison, effect, systems, components, alpha, target_power, rng)
    return out


def _study_now(project, columns, comparison, effect, systems, components, alpha, target_power, rng) -> dict:
    """Where the running study stands: its interval and test on the two systems, its power at the
    present size, and how many more items (at its raters per item) would reach the target power."""
    names = sorted(set(columns[1].tolist()) | (set() if columns[4] is None else set(columns[4].tolist())))
    pair = tuple(systems or names[:2])
    if len(pair) != 2 or any(s not in names for s in pair):
        return {"error": f"name two of this study's systems ({', '.join(names)})"}
    stats_now = _item_statistics(columns, comparison, pair)
    null = 0.0 if comparison == "mean_difference" else 0.5
    try:
        answer = interim_answer(stats_now, null=null, alpha=alpha)
    except InsufficientDataError as exc:
        return {"systems": list(pair), "error": str(exc)}
    # raters per item so far: ratings per (item, system), whatever the protocol
    per_item = max(1, round(len(columns[3]) / max(len(set(zip(columns[0], columns[1], strict=True))), 1)))

    n = answer.n_items
    common = {"comparison": comparison, "effect": effect, "raters_per_item": per_item, "alpha": alpha, "rng": rng}
    power_now = design_power(components, n_items=max(n, 2), n_simulations=2000, **common).power
    more = 0
    if power_now < target_power:
        needed = items_for_power(components, target_power=target_power, max_items=MAX_ITEMS, **common)
        more = None if needed is None else max(needed - n, 0)
    return {
        "systems": list(pair),
        "n_items": n,
        "raters_per_item": per_item,
        "estimate": answer.estimate,
        "ci": [answer.ci_low, answer.ci_high],
        "p_value": num(answer.p_value),
        "answered": answer.decided,
        "power_now": power_now,
        "more_items_for_target": more,
        "more_judgments_for_target": None if more is None else more * per_item,
    }


@transaction.atomic
def study_plan_apply(*, project: Project, raters_per_item: int, by=None) -> Project:
    """Sets the project's raters per item to the plan's and every ordinary item to that many
    (double annotation on all items). Only before any judgment: raters who started were given
    the old targets."""
    project = Project.objects.select_for_update().get(pk=project.pk)
    if Judgment.objects.filter(project=project).exists():
        raise ValueError("raters per item cannot change once raters have started; plan the next round in a new project")
    if not 1 <= raters_per_item <= 100:
        raise ValueError("raters_per_item must be from 1 to 100")
    before = (project.raters_per_item, project.double_annotation_share)
    project.raters_per_item, project.double_annotation_share = raters_per_item, 1.0
    project.full_clean(exclude=["created_by"])
    project.save(update_fields=["raters_per_item", "double_annotation_share"])
    item_targets_replan(project=project)
    audit_record(
        actor=by,
        action="project.plan_apply",
        project=project,
        target=project.name,
        detail={"raters_per_item": [before[0], raters_per_item], "double_annotation_share": [before[1], 1.0]},
    )
    return project
