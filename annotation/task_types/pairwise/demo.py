"""The pairwise demo study: two summarisers, A or B."""

from ..facts import Demo
from .coding import TIE


def _answers(criterion: str, scores: list[float], rng) -> list[dict]:
    return [{"criterion": criterion, "value": TIE if scores[0] == scores[1] else "A" if scores[0] > scores[1] else "B"}]


DEMO = Demo(
    name="Demo: A/B preference",
    n_systems=2,
    criteria=({"name": "overall"},),
    instructions="Read the source text and the two summaries, A and B. Choose the one you would rather give a"
    " reader who has no time to read the source: accurate first, then clear. Choose **Tie** only when you truly"
    " cannot prefer one. A and B are shown in a random order on every screen.",
    answers=_answers,
    conversation_name="Demo: chat assistants, A/B",
    conversation_instructions="Read the conversation between a customer and a travel assistant (scroll it: it may be"
    " long, and some are in French or Arabic), then the two candidate next turns, A and B. Choose the reply that"
    " better answers the customer's **last** message: correct, specific, in the customer's language. Choose **Tie**"
    " only when you truly cannot prefer one.",
)
