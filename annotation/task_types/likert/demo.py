"""The Likert demo study: two summarisers rated on fluency and faithfulness."""

from ..facts import Demo


def _answers(criterion: str, scores: list[float], rng) -> list[dict]:
    return [{"criterion": criterion, "position": p, "value": int(x)} for p, x in enumerate(scores)]


DEMO = Demo(
    name="Demo: summary quality (Likert)",
    n_systems=2,
    criteria=(
        {
            "name": "fluency",
            "scale_min": 1,
            "scale_max": 5,
            "labels": ["Unreadable", "Poor", "Fair", "Good", "Perfect"],
        },
        {
            "name": "faithfulness",
            "scale_min": 1,
            "scale_max": 5,
            "labels": ["Invented", "Mostly wrong", "Mixed", "Mostly right", "Fully supported"],
        },
    ),
    instructions="Read the source text, then rate **each summary on its own** for two things:\n\n"
    "- **Fluency**: is it well-formed, readable English? Ignore whether it is true.\n"
    "- **Faithfulness**: is everything it says supported by the source? An invented detail makes it unfaithful,"
    " however well written.\n\n"
    "Use the whole scale. If a text is broken or offensive, flag it instead of rating it.",
    answers=_answers,
)
