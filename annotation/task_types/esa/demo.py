"""The ESA demo study: one summary at a time, its errors marked, then scored."""

from ..error_span_facts import demo_spans
from ..facts import Demo


def _answers(criterion: str, scores: list[float], rng) -> list[dict]:
    """A perfect 5 has no error; a lower score marks an error on the first character (major below 3) and
    scores 0–100, blurred."""
    values = []
    for p, x in enumerate(scores):
        spans = demo_spans(x)
        score = round(min(100.0, max(0.0, (x - 1) * 25 + rng.gauss(0, 6))))
        values.append(
            {"criterion": criterion, "position": p, "value": {"spans": spans, "no_error": not spans, "score": score}}
        )
    return values


DEMO = Demo(
    name="Demo: error spans and a score (ESA)",
    n_systems=1,
    criteria=({"name": "quality"},),
    instructions="Read the source text and the summary. First **mark every error** in the summary: select its text"
    " with the mouse (or focus the summary and select with Shift and the arrow keys) and choose **minor** (a"
    " slip a reader would forgive) or **major** (it changes or loses the meaning). If there is none, tick **No"
    " error**. Then give the summary a **score from 0 to 100** with those errors in view: 0 no meaning kept, 33"
    " some, 66 most with a few errors, 100 perfect.",
    answers=_answers,
)
