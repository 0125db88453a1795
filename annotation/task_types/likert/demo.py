"""The Likert demo studies: two summarisers rated on fluency and faithfulness, and two chat assistants' conversations
rated turn by turn and as a whole."""

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
    conversation_name="Demo: chat assistants, per turn (Likert)",
    conversation_instructions="Read how the conversation between a customer and a travel assistant starts, then "
    "each assistant's continuation of it (scroll: some are long, some in French or Arabic). Rate **every assistant "
    "turn** where it stands, and then the **whole conversation**, for two things:\n\n"
    "- **Fluency**: is it well-formed, readable text in the customer's language?\n"
    "- **Faithfulness**: does it answer what the customer asked, without inventing trains, prices or times?\n\n"
    "Use the whole scale.",
    conversation_rating_unit="both",
)
