"""The demo's conversations (seeded): a customer talks to a travel assistant over a few exchanges, in English,
French or Arabic (a right-to-left one), and two assistants propose the next turn: ``helpful`` answers the last
question with the details asked for, ``terse`` answers it vaguely. Items are item import lines whose input is the
conversation, so the demo goes through the same import as any upload."""

import random

CHAT_SYSTEMS = ["helpful", "terse"]
# Each chat system's typical 1–5 score (annotation.services.demo's simulated raters start from it).
CHAT_QUALITY = {"helpful": {"overall": 4.2}, "terse": {"overall": 2.6}}

CITIES = ["Lyon", "Nice", "Porto", "Seville", "Bologna", "Ghent"]
DAYS = ["Monday", "Friday", "Saturday", "next week"]
SYSTEM_PROMPT = "You are a travel assistant. Answer in the customer's language, with times and prices when asked."

# Per language: the customer's opening, follow-up questions and the assistant's earlier answers; {a} and {b}
# are the two cities, {day} the day. The last question is the one the candidate next turns answer.
SCRIPTS = {
    "en": {
        "open": "Hi! I want to go from {a} to {b} on {day}. What are my options?",
        "answers": [
            "There are direct trains and one bus a day from {a} to {b}.",
            "The earliest train leaves {a} at 06:10 and arrives in {b} at 10:45.",
            "A second-class seat costs from 39 € if you book a week ahead.",
        ],
        "questions": [
            "Is there anything earlier in the morning?",
            "How much would a ticket cost?",
            "Can I bring a bicycle on board?",
            "And what about coming back on Sunday evening?",
        ],
        "helpful": "Yes: on {day} the 06:10 from {a} reaches {b} at 10:45; seats start at 39 €, bicycles travel "
        "free in the marked carriage, and the last train back on Sunday leaves {b} at 19:32.",
        "terse": "Probably, check the website.",
    },
    "fr": {
        "open": "Bonjour ! Je voudrais aller de {a} à {b} {day}. Quelles sont les options ?",
        "answers": [
            "Il y a des trains directs et un car par jour entre {a} et {b}.",
            "Le premier train quitte {a} à 06 h 10 et arrive à {b} à 10 h 45.",
        ],
        "questions": ["Y a-t-il un train plus tôt ?", "Combien coûte le billet ?", "Puis-je prendre mon vélo ?"],
        "helpful": "Oui : le train de 06 h 10 depuis {a} arrive à {b} à 10 h 45, à partir de 39 € en seconde ; "
        "les vélos voyagent gratuitement dans la voiture signalée.",
        "terse": "Je ne sais pas, voyez en gare.",
    },
    "ar": {
        "open": "مرحبا! أريد السفر من {a} إلى {b}. ما هي الخيارات المتاحة؟",
        "answers": [
            "هناك قطارات مباشرة وحافلة واحدة يوميا من {a} إلى {b}.",
            "أول قطار يغادر {a} الساعة 06:10 ويصل إلى {b} الساعة 10:45.",
        ],
        "questions": ["هل هناك قطار أبكر؟", "كم سعر التذكرة؟", "هل يمكنني أخذ دراجتي؟"],
        "helpful": "نعم: القطار الذي يغادر {a} الساعة 06:10 يصل إلى {b} الساعة 10:45، وسعر التذكرة يبدأ من 39 يورو، "
        "ويمكن نقل الدراجات مجانا في العربة المخصصة.",
        "terse": "لا أعرف.",
    },
}
LANGUAGES = ["en", "en", "fr", "ar"]


def demo_conversation_items(prefix: str, n_items: int, seed: int, *, whole: bool = False) -> list[dict]:
    """``n_items`` item lines: a conversation of 2 to 4 exchanges ending on the customer's question, and each
    chat system's candidate next turn; the language is the subgroup. ``whole``: the input is the system prompt and
    the customer's first message, and each system's output the conversation from there, its own reply last (for
    rating every assistant turn)."""
    rng = random.Random(seed)
    lines = []
    for i in range(n_items):
        language = LANGUAGES[i % len(LANGUAGES)]
        script = SCRIPTS[language]
        a, b = rng.sample(CITIES, 2)
        fill = {"a": a, "b": b, "day": rng.choice(DAYS)}
        turns = [{"role": "system", "text": SYSTEM_PROMPT}, {"role": "user", "text": script["open"].format(**fill)}]
        exchanges = rng.randint(1, len(script["answers"]))
        questions = rng.sample(script["questions"], exchanges)
        for answer, question in zip(script["answers"][:exchanges], questions, strict=True):
            turns.append({"role": "assistant", "text": answer.format(**fill)})
            turns.append({"role": "user", "text": question})
        outputs = [{"system": s, "text": script[s].format(**fill)} for s in CHAT_SYSTEMS]
        if whole:
            turns, shared = turns[:2], turns[2:]
            outputs = [
                {"system": o["system"], "turns": [*shared, {"role": "assistant", "text": o["text"]}]} for o in outputs
            ]
        lines.append(
            {
                "external_id": f"{prefix}-{i + 1:03d}",
                "input": turns,
                "outputs": outputs,
                "subgroup": language,
                "meta": {"generated": True, "seed": seed, "language": language},
            }
        )
    return lines
