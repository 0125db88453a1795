"""How each scope's main coefficient is bootstrapped: 200 random blocks of units (plain unit
resampling below 200 units), 500 replicates, seeded by the project and the scope's names and
positions, so a recompute repeats its intervals whatever order scopes are computed in and whichever
rows the database numbered first. 500 replicates put the 2.5% / 97.5% percentiles within about a
tenth of a standard error of where 10,000 would, at half the cost of 1,000: a dashboard stores
thousands of intervals. The interval is the one ``agreement.stats.ALPHA_METHODS`` names for the
level (BCa for nominal and ordinal alpha, percentile for interval alpha: what covered best in
tests/bench/bench_interval_coverage.py), stored beside it as its ci_method."""

import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from agreement.stats import InsufficientDataError
from agreement.stats.bootstrap import ALPHA_METHODS

BOOTSTRAP_BLOCKS = 200
BOOTSTRAP_RESAMPLES = 500


def scope_rng(project_id: int, window, scope, criterion_position) -> np.random.Generator:
    """The generator of one scope's bootstrap; ``criterion_position`` is the criterion's place in
    the project ("" for scopes over all criteria)."""
    seed = zlib.crc32(f"{window.name}|{window.week_start}|{scope.scope}|{scope.subgroup}|{criterion_position}".encode())
    return np.random.default_rng([project_id, seed])


def bootstrapped(
    bootstrap: Callable[..., Any],
    *data: Any,
    level: str,
    rng: np.random.Generator,
    alone: Callable[[], Any],
    **options: Any,
) -> Any:
    """``bootstrap`` (``bootstrap_alpha`` or its counts form) on ``data`` with the scope's resampling and the
    level's interval method, or ``alone()`` when there are too few units for an interval: alpha itself may still
    be defined, and is then stored without one."""
    try:
        return bootstrap(
            *data,
            level_of_measurement=level,
            rng=rng,
            n_resamples=BOOTSTRAP_RESAMPLES,
            max_blocks=BOOTSTRAP_BLOCKS,
            method=ALPHA_METHODS[level],
            **options,
        )
    except InsufficientDataError:
        return alone()
