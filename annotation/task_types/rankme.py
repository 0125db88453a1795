"""RankME (Novikova et al., NAACL 2018): relative magnitude estimation of 2–k outputs shown side by
side, one continuous slider per output and criterion (default range 0–100)."""
from .base import TaskType, TaskTypeError, check_gold_criteria, check_system, in_scale, number

DEFAULT_RANGE = (0.0, 100.0)


class RankME(TaskType):
    slug = "rankme"
    label = "RankME (relative magnitude estimation)"
    template_name = "annotation/rankme/rate.html"
    level_of_measurement = "interval"
    min_outputs = 2

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
                low = in_scale(number(bounds[0], what), criteria[name], f"{what} low")
                high = in_scale(number(bounds[1], what), criteria[name], f"{what} high")
                if low > high:
                    raise TaskTypeError(f"{what}: low {low:g} is above high {high:g}")
                ranges[s] = [low, high]
            out[name] = ranges
        return out

    def gold_on_screen(self, gold, criterion, shown_systems):
        ranges = gold.get(criterion) or {}
        return [{"criterion": criterion, "position": p, "value": ranges[s]}
                for p, s in enumerate(shown_systems) if s in ranges]

    def gold_correct(self, gold, criterion, system, value):
        """The slider falls within the expected [low, high], both ends included."""
        bounds = (gold.get(criterion) or {}).get(system)
        return None if bounds is None else bounds[0] <= value <= bounds[1]

    def code_value(self, value, criterion, systems, system):
        if system is None:
            raise TaskTypeError("system: name the output judged")
        check_system(system, systems, "system")
        return system, in_scale(number(value, "value"), criterion, "value"), ""


TYPE = RankME()
