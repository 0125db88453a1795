"""The settings of adaptive allocation, for the task types that compare systems two at a time (pairwise) or in
tuples (best–worst scaling): checked and completed here, kept in the project's ``task_config`` under
``"adaptive"`` (the type's own normalise_config calls adaptive_config_normalise), read back as an
AdaptiveSettings by annotation.services.adaptive_allocation."""

from dataclasses import dataclass

from .base import TaskTypeError

# A type's adaptive_unit: what one draw picks, a pair of systems or a tuple of them (an item's outputs).
PAIRS, TUPLES = "pairs", "tuples"
TARGETS = ("ranking", "top_k")
# the estimator the results report, whose variance the allocation minimises (evaluation.stats.adaptive_pairs and
# adaptive_tuples: weighted back to a uniform design, design-robust; or unweighted, efficient when the model holds)
WEIGHTINGS = ("inverse_probability", "none")
DEFAULT_WEIGHTING = "inverse_probability"
# the share of a uniform draw every allocation keeps: with inverse weights it bounds them by 1 / floor; unweighted
# it only keeps every pair in reach of a wrong early ranking (evaluation.stats.allocation_probabilities)
DEFAULT_FLOORS = {"inverse_probability": 0.3, "none": 0.1}
DEFAULT_REFRESH_EVERY = 20
# Bounds a lead may set (a cold start beyond a million judgments, or a refresh rarer than that, is a typo).
MAX_JUDGMENTS = 1_000_000
FIELDS = ("target", "top_k", "cold_start", "floor", "refresh_every", "weighting")


@dataclass(frozen=True)
class AdaptiveSettings:
    """``target``: the whole ranking or the top ``top_k``; ``cold_start``: judgments drawn from the reference
    design (uniform over the pairs, or the tuples) before adapting, None for two per pair (one per tuple);
    ``floor``: share of the reference design kept in every allocation (inverse weights stay below 1 / floor);
    ``refresh_every``: judgments between two recomputations of the probabilities; ``weighting``: the estimator
    reported (settings stored before it existed read as inverse_probability)."""

    target: str
    top_k: int | None
    cold_start: int | None
    floor: float
    refresh_every: int
    weighting: str = DEFAULT_WEIGHTING


def _whole(raw: dict, name: str, low: int, *, optional: bool) -> int | None:
    value = raw.get(name)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_JUDGMENTS:
        raise TaskTypeError(
            f"task_config.adaptive.{name}: a whole number from {low} to {MAX_JUDGMENTS:,}"
            f"{', or null' if optional else ''}; got {value!r}"
        )
    return value


def adaptive_config_normalise(raw) -> dict:
    """The ``adaptive`` settings checked, with their defaults; raises TaskTypeError naming the field."""
    if not isinstance(raw, dict) or set(raw) - set(FIELDS):
        raise TaskTypeError(f"task_config.adaptive: an object with {', '.join(FIELDS)}; got {raw!r}")
    target = raw.get("target", "ranking")
    if target not in TARGETS:
        raise TaskTypeError(f"task_config.adaptive.target: one of {', '.join(TARGETS)}; got {target!r}")
    top_k = _whole(raw, "top_k", 1, optional=target != "top_k")
    if target != "top_k" and top_k is not None:
        raise TaskTypeError("task_config.adaptive.top_k: only with target top_k")
    weighting = raw.get("weighting", DEFAULT_WEIGHTING)
    if weighting not in WEIGHTINGS:
        raise TaskTypeError(f"task_config.adaptive.weighting: one of {', '.join(WEIGHTINGS)}; got {weighting!r}")
    floor = raw.get("floor")
    floor = DEFAULT_FLOORS[weighting] if floor is None else floor
    if isinstance(floor, bool) or not isinstance(floor, int | float) or not 0 < floor <= 1:
        raise TaskTypeError(f"task_config.adaptive.floor: a number in (0, 1]; got {floor!r}")
    return {
        "target": target,
        "top_k": top_k,
        "cold_start": _whole(raw, "cold_start", 0, optional=True),
        "floor": float(floor),
        "refresh_every": _whole({"refresh_every": DEFAULT_REFRESH_EVERY} | raw, "refresh_every", 1, optional=False),
        "weighting": weighting,
    }


def adaptive_settings(config: dict | None) -> AdaptiveSettings | None:
    """The settings kept in a normalised ``task_config``; None when adaptive allocation is off."""
    raw = (config or {}).get("adaptive")
    return None if raw is None else AdaptiveSettings(**raw)
