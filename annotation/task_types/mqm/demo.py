"""The MQM demo study: one summary at a time, every error marked with a category and a severity."""

from ..error_span_facts import demo_spans
from ..facts import Demo


def _answers(criterion: str, scores: list[float], rng) -> list[dict]:
    """A perfect 5 has no error; a lower score marks a grammar error on the first character (major below 3)."""
    return [
        {
            "criterion": criterion,
            "position": p,
            "value": {"spans": demo_spans(x, "Fluency/Grammar"), "no_error": x >= 5},
        }
        for p, x in enumerate(scores)
    ]


DEMO = Demo(
    name="Demo: MQM error annotation",
    n_systems=1,
    criteria=({"name": "errors"},),
    instructions="Read the source text and the summary, and **mark every error** in the summary: select its text"
    " with the mouse (or focus the summary and select with Shift and the arrow keys), choose the error's"
    " **category** and its **severity**: minor (a reader would forgive it), major (it changes or loses the"
    " meaning) or critical (it could mislead or harm). Mark errors of the source text in the source; if the summary"
    " is not a summary at all, use **Non-translation**. If there is no error, tick **No error**.",
    answers=_answers,
)
