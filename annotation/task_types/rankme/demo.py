"""The RankME demo study: three summarisers on one slider."""

from ..facts import Demo


def _answers(criterion: str, scores: list[float], rng) -> list[dict]:
    """1–5 → the slider's 0–100, blurred."""
    return [
        {"criterion": criterion, "position": p, "value": round(min(100.0, max(0.0, (x - 1) * 25 + rng.gauss(0, 6))), 1)}
        for p, x in enumerate(scores)
    ]


DEMO = Demo(
    name="Demo: RankME sliders",
    n_systems=3,
    criteria=({"name": "overall quality", "scale_min": 0, "scale_max": 100, "labels": ["Useless", "Excellent"]},),
    instructions="Read the source text and the three summaries side by side. Move each summary's slider to say how"
    " good it is **relative to the others**: a summary twice as good sits about twice as far along. Sliders start"
    " unset; set every one. The numbers matter only in relation to each other.",
    answers=_answers,
)
