"""ESA, Error Span Annotation (Kocmi et al., WMT 2024): the rater marks the errors of a translation as minor or
major spans, then scores it 0–100 with those errors in view. One criterion per project; its coded value is the
score, and the spans are stored beside it (annotation.models.ErrorSpan)."""

from ..base import TaskTypeError, number
from ..error_spans import ErrorSpanType

SEVERITIES = ["minor", "major"]
SCORE_RANGE = (0.0, 100.0)


class ESA(ErrorSpanType):
    slug = "esa"
    label = "ESA (error spans and a 0–100 score)"
    template_name = "annotation/esa/rate.html"
    extra_fields = ("score",)
    gold_extra = ("score",)

    def normalise_scale(self, scale_min, scale_max, labels):
        if any(
            given is not None and given != end for given, end in zip((scale_min, scale_max), SCORE_RANGE, strict=True)
        ):
            raise TaskTypeError("scale_min, scale_max: an ESA score is 0–100 (leave them out)")
        if labels:
            raise TaskTypeError("labels: an ESA score takes no labels")
        return *SCORE_RANGE, []

    def normalise_config(self, config):
        config = {} if config is None else config
        if not isinstance(config, dict) or set(config) - {"severities"}:
            raise TaskTypeError(f"task_config: an ESA project takes only severities, got {config!r}")
        if config.get("severities", SEVERITIES) != SEVERITIES:
            raise TaskTypeError(f"task_config.severities: ESA's severities are {', '.join(SEVERITIES)}")
        return {"severities": list(SEVERITIES)}

    def widget_config(self, question, config):
        criterion = question["criterion"]
        return {
            **super().widget_config(question, config),
            "score": {"min": criterion["scale_min"], "max": criterion["scale_max"]},
        }

    def repeat_same(self, value, before, low, high, modulus):
        """Scores within a tenth of the scale (as RankME's sliders)."""
        return abs(value - before) <= (high - low) / 10

    def value_of(self, spans, answer, criterion, config):
        if answer.get("score") is None:
            raise TaskTypeError("value.score is missing: score the translation 0–100 after marking its errors")
        score = number(answer["score"], "value.score")
        if not criterion.scale_min <= score <= criterion.scale_max:
            raise TaskTypeError(
                f"value.score {score:g} is off the scale {criterion.scale_min:g}–{criterion.scale_max:g}"
            )
        return score
