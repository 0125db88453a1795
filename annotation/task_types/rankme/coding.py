"""RankME (Novikova et al., NAACL 2018): relative magnitude estimation of 2–k outputs shown side by
side, one continuous slider per output and criterion (default range 0–100).

With a project modulus, the item's reference is shown first with that fixed score and every output
takes any positive score relative to it (magnitude estimation: 200 = twice as good as the reference).
"""

import math
import random

from ..base import TaskType, TaskTypeError, check_gold_criteria, check_system, number, scale_number
from ..facts import TOP_FIRST

DEFAULT_RANGE = (0.0, 100.0)
# With a modulus the slider spans this many powers of ten either side of it (typed numbers go further).
LOG_DECADES = 2


# The key of a rater's balance under which their Latin square's seed and screen count sit (no system is "").
LATIN = ""


def williams_row(k: int, row: int) -> list[int]:
    """Row ``row`` of the Williams Latin square of order k (Williams 1949): over k consecutive rows every
    position shows every output once, and for even k every output follows every other once."""
    first, low, high = [0], 1, k - 1
    while len(first) < k:
        first.append(low)
        low += 1
        if len(first) < k:
            first.append(high)
            high -= 1
    return [(x + row) % k for x in first]


class RankME(TaskType):
    slug = "rankme"
    label = "RankME (relative magnitude estimation)"
    template_name = "annotation/rankme/rate.html"
    level_of_measurement = "interval"
    min_outputs = 2
    takes_modulus = True
    position_bias = TOP_FIRST

    def draw_order(self, systems, rng, left_balance, *, randomise=True):
        """The outputs in the order of the next row of the rater's Latin square: each rater's screens cycle
        through the rows of a Williams square, its outputs relabelled by a permutation drawn from the seed
        recorded in their balance (drawn on their first screen), so every output is shown in every position
        equally often per rater; the imported order when ``randomise`` is off."""
        if not randomise or len(systems) < 2:
            return list(range(len(systems)))
        state = left_balance.setdefault(LATIN, {"seed": rng.randrange(2**31), "n": 0})
        relabel = random.Random(f"{state['seed']}:{len(systems)}").sample(range(len(systems)), len(systems))
        return [relabel[x] for x in williams_row(len(systems), state["n"])]

    def order_record(self, balance, systems, order):
        if LATIN not in balance:  # the imported order (randomise off): nothing to keep
            return False
        balance[LATIN]["n"] += 1
        return True

    def normalise_scale(self, scale_min, scale_max, labels):
        low = DEFAULT_RANGE[0] if scale_min is None else number(scale_min, "scale_min")
        high = DEFAULT_RANGE[1] if scale_max is None else number(scale_max, "scale_max")
        if low >= high:
            raise TaskTypeError(f"scale_min ({low:g}) must be below scale_max ({high:g})")
        labels = list(labels or [])
        if len(labels) not in (0, 2) or not all(isinstance(x, str) for x in labels):
            raise TaskTypeError("labels: give none, or two strings for the low and high ends of the slider")
        return low, high, labels

    def normalise_gold(self, gold, criteria, systems):
        """``{"fluency": {"bart": [60, 100]}}``: the range a careful rater's slider falls in."""
        out = {}
        for name, per_system in check_gold_criteria(gold, criteria).items():
            if not isinstance(per_system, dict) or not per_system:
                raise TaskTypeError(f"gold.{name} must map system names to [low, high]")
            ranges = {}
            for s, bounds in per_system.items():
                what = f"gold.{name}.{s}"
                check_system(s, systems, f"gold.{name}")
                if not isinstance(bounds, list | tuple) or len(bounds) != 2:
                    raise TaskTypeError(f"{what} must be [low, high], got {bounds!r}")
                low = scale_number(bounds[0], criteria[name], f"{what} low")
                high = scale_number(bounds[1], criteria[name], f"{what} high")
                if low > high:
                    raise TaskTypeError(f"{what}: low {low:g} is above high {high:g}")
                ranges[s] = [low, high]
            out[name] = ranges
        return out

    def gold_on_screen(self, gold, criterion, shown_systems):
        ranges = gold.get(criterion) or {}
        return [
            {"criterion": criterion, "position": p, "value": ranges[s]}
            for p, s in enumerate(shown_systems)
            if s in ranges
        ]

    def gold_correct(self, gold, criterion, system, value, spans=(), turn=None):
        """The slider falls within the expected [low, high], both ends included."""
        bounds = (gold.get(criterion) or {}).get(system)
        return None if bounds is None else bounds[0] <= value <= bounds[1]

    def code_value(self, value, criterion, systems, system):
        if system is None:
            raise TaskTypeError("system: name the output judged")
        check_system(system, systems, "system")
        return system, scale_number(value, criterion, "value"), ""

    def repeat_same(self, value, before, low, high, modulus):
        """Near enough counts as the same: within a tenth of the scale; with a modulus (unbounded magnitudes),
        within a tenth of the log slider's span, i.e. a factor of 10**0.4 (about 2.5)."""
        if modulus is not None:
            return abs(math.log10(value / before)) <= 2 * LOG_DECADES / 10
        return abs(value - before) <= (high - low) / 10

    def slider(self, criterion: dict, answer, modulus: float | None) -> dict:
        """How a screen draws one slider: its ends, start, keyboard step and position for ``answer`` (an unset
        linear slider has no value for the rater: the script hides its thumb and starts it from an end).

        With a modulus the slider runs over log10 of the score, from a hundredth to a hundred times
        the modulus (an arrow key moves about 2.3%, Page Up/Down about ×2.5); the number field
        beside it takes any positive score, beyond the slider's ends too.
        """
        at = _as_number(answer)
        if modulus is None:
            low, high = criterion["scale_min"], criterion["scale_max"]
            mid, step = (low + high) / 2, (high - low) / 100
        else:
            mid = math.log10(modulus)
            low, high, step = mid - LOG_DECADES, mid + LOG_DECADES, 0.01
            at = math.log10(at) if at is not None and at > 0 else None
        slider = {
            "low": f"{low:g}",
            "high": f"{high:g}",
            "step": f"{step:g}",
            "position": f"{mid if at is None else at:g}",
            "log_scale": modulus is not None,
        }
        # the scores at the slider's ends, shown beside them where the criterion names no ends of its own
        slider["ends"] = (
            (f"{modulus / 10**LOG_DECADES:g}", f"{modulus * 10**LOG_DECADES:g}")
            if modulus is not None
            else (f"{low:g}", f"{high:g}")
        )
        return slider


def _as_number(answer) -> float | None:
    """A stored answer (a float) or one sent back by a refused form (a string), if it reads as a finite number."""
    try:
        x = float(answer)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None
