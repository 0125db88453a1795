"""Small helpers shared by the evaluation services: JSON-safe numbers, seeded generators, human
score matrices."""

import math

import numpy as np

from annotation.models import Project
from annotation.task_types import REGISTRY
from evaluation.selectors import RatingFrame
from evaluation.stats import normalise_scores

# Bootstrap samples the API accepts per request: enough for stable 95% intervals, bounded for time.
MAX_RESAMPLES = 10_000
# How the results name a weighting of adaptively drawn judgments (evaluation.stats.WEIGHTINGS).
WEIGHTING_WORDS = {
    "inverse_probability": "inverse-probability weighted",
    "stabilised": "weighted by the square root of the inverse probability",
    "none": "unweighted",
}


def num(value) -> float | None:
    """A float for JSON, None for NaN (the API never answers NaN)."""
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) or math.isinf(value) else value


def interval(low, high) -> list[float | None]:
    return [num(low), num(high)]


def generator(seed: int) -> np.random.Generator:
    """The generator of one computation: fixed by ``seed`` so that a page and the API agree."""
    return np.random.default_rng(seed)


def normalised_values(frame: RatingFrame, normalisation: str) -> np.ndarray:
    """The frame's values after per-rater normalisation (computed per criterion)."""
    if normalisation == "none" or not len(frame):
        return frame.value.astype(float)
    return normalise_scores(frame.value, raters=frame.rater, method=normalisation)


def human_matrix(
    frame: RatingFrame, values: np.ndarray, *, systems: list | None = None
) -> tuple[list, list, np.ndarray]:
    """(items, systems, (n_items, n_systems) mean rating of each output), NaN where unrated."""
    items = sorted(set(frame.item.tolist()))
    systems = systems or sorted(set(frame.system.tolist()))
    item_index = {x: i for i, x in enumerate(items)}
    system_index = {x: s for s, x in enumerate(systems)}
    sums = np.zeros((len(items), len(systems)))
    counts = np.zeros((len(items), len(systems)))
    keep = np.array([s in system_index for s in frame.system.tolist()], dtype=bool) & ~np.isnan(values)
    rows = np.array([item_index[x] for x in frame.item[keep].tolist()], dtype=int)
    cols = np.array([system_index[x] for x in frame.system[keep].tolist()], dtype=int)
    np.add.at(sums, (rows, cols), values[keep])
    np.add.at(counts, (rows, cols), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return items, systems, sums / counts


def rater_unit_matrix(frame: RatingFrame, raters: list[int]) -> tuple[np.ndarray, list[tuple]]:
    """((n_raters, n_units) reliability data, NaN where not rated; the units, (item, system) in sorted order)
    of the frame's judgments, rows in the order of ``raters``."""
    units = sorted(set(zip(frame.item.tolist(), frame.system.tolist(), strict=True)))
    unit_index = {u: k for k, u in enumerate(units)}
    rater_index = {r: k for k, r in enumerate(raters)}
    data = np.full((len(raters), len(units)), np.nan)
    cols = [unit_index[u] for u in zip(frame.item.tolist(), frame.system.tolist(), strict=True)]
    data[[rater_index[r] for r in frame.rater.tolist()], cols] = frame.value
    return data, units


def default_normalisation(project: Project) -> str:
    """The normalisation the project's task type declares, without and with a modulus."""
    return REGISTRY[project.task_type].results.normalisation(project.rankme_modulus)
