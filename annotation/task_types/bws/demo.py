"""The best–worst demo study: three summarisers in every tuple, the best and the worst picked."""

from ..facts import Demo


def _answers(criterion: str, scores: list[float], rng) -> list[dict]:
    """The highest score is picked best (the first shown of equals), the lowest worst (the last shown of equals);
    the other outputs need no answer."""
    best = max(range(len(scores)), key=lambda p: (scores[p], -p))
    worst = min((p for p in range(len(scores)) if p != best), key=lambda p: (scores[p], -p))
    return [
        {"criterion": criterion, "position": best, "value": "best"},
        {"criterion": criterion, "position": worst, "value": "worst"},
    ]


DEMO = Demo(
    name="Demo: best and worst summary (BWS)",
    n_systems=3,
    criteria=({"name": "overall"},),
    instructions="Read the source text and the summaries. Pick the **best** summary, the one you would rather give a"
    " reader with no time to read the source (accurate first, then clear), and the **worst**. Both picks are"
    " needed and must be different summaries. Keys: **1**–**9** pick an output in the question that has the"
    " focus (best first, then worst), **Enter** sends.",
    answers=_answers,
)
