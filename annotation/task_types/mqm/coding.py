"""MQM, Multidimensional Quality Metrics as WMT runs it (Freitag et al., TACL 2021): the rater marks every error
of a translation with a category of the project's typology and a severity, and may mark source errors and a
whole-segment non-translation. One criterion per project and no scale; its coded value is the segment's MQM
penalty under the project's weights (lower is better), and the spans are stored beside it."""

from ..base import TaskTypeError
from ..error_spans import (
    DEFAULT_TYPOLOGY,
    REJECTED,
    WMT_WEIGHTS,
    ErrorSpanType,
    categories_of,
    typology_normalise,
    weight_of,
    weights_normalise,
)

SEVERITIES = ["minor", "major", "critical"]
CONFIG_FIELDS = ("typology", "severities", "weights")
REPEAT_TOLERANCE = 1.0


class MQM(ErrorSpanType):
    slug = "mqm"
    label = "MQM (error typology and severities)"
    template_name = "annotation/mqm/rate.html"

    def normalise_scale(self, scale_min, scale_max, labels):
        if scale_min is not None or scale_max is not None or labels:
            raise TaskTypeError(
                "scale_max: an MQM criterion takes no scale or labels (its value is the penalty of "
                "the errors marked, under the project's weights)"
            )
        return None, None, []

    def normalise_config(self, config):
        """``{"typology": [...], "severities": [...], "weights": [...]}``, each optional: by default the MQM core
        typology with WMT's categories, minor/major/critical, and WMT's weights (those of its rules whose category
        the typology has)."""
        config = {} if config is None else config
        if not isinstance(config, dict) or set(config) - set(CONFIG_FIELDS):
            raise TaskTypeError(f"task_config: an MQM project takes {', '.join(CONFIG_FIELDS)}, got {config!r}")
        if config.get("severities", SEVERITIES) != SEVERITIES:
            raise TaskTypeError(f"task_config.severities: MQM's severities are {', '.join(SEVERITIES)}")
        typology = typology_normalise(config.get("typology", DEFAULT_TYPOLOGY))
        categories = categories_of(typology)
        groups = {c.split("/")[0] for c in categories}
        default = [r for r in WMT_WEIGHTS if r.get("category") is None or r["category"] in categories.keys() | groups]
        weights = weights_normalise(config.get("weights", default), SEVERITIES, categories)
        return {"typology": typology, "severities": list(SEVERITIES), "weights": weights}

    def categories(self, config):
        return categories_of(config["typology"])

    def widget_config(self, question, config):
        return {**super().widget_config(question, config), "typology": config["typology"]}

    def repeat_same(self, value, before, low, high, modulus):
        """Penalties apart by at most one minor error under WMT's weights (1): the same errors found, give or take
        a slip."""
        return abs(value - before) <= REPEAT_TOLERANCE

    def span_weigher(self, task_config):
        weights = (task_config or self.normalise_config(None))["weights"]
        return lambda severity, category: weight_of(weights, severity, category)

    def value_of(self, spans, answer, criterion, config):
        return float(sum(weight_of(config["weights"], s.severity, s.category) for s in spans if s.origin != REJECTED))
