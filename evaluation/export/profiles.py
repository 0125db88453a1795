"""Rater profiles in an export: one line per rater (by pseudonym) with their answers to the profile form, the
fields marked sensitive left out unless the lead asked for them in this export; and the card's section saying
which fields were collected and which were left out."""

import json

from .card import table, user_text
from .card_facts import CardFacts

FILE = "data/rater_profiles.jsonl"


def lines(answers: dict[str, dict], fields: list[str]) -> str:
    """JSON lines ``{"rater": pseudonym, <field>: answer…}`` in pseudonym order, ``fields`` only."""
    out = []
    for rater in sorted(answers):
        out.append(json.dumps({"rater": rater, **{f: answers[rater].get(f) for f in fields}}, ensure_ascii=False))
    return "\n".join(out) + ("\n" if out else "")


def card_text(facts: CardFacts) -> str:
    """The section as text to follow the card ("" when the project asks no profile)."""
    profile = facts.rater_profiles
    if profile is None:
        return ""
    rows = [
        [user_text(f.name), f.kind, "yes" if f.sensitive else "no", "yes" if f.exported else "no"]
        for f in profile.fields
    ]
    left_out = [f.name for f in profile.fields if not f.exported]
    out = [
        "## Rater profiles",
        "",
        "Raters answered a profile form after agreeing to its consent text; a rater who declined answered nothing "
        f"and judged nothing. `{FILE}` holds one line per rater with judgments in this export who agreed "
        f"({profile.n_raters}), under the rater's pseudonym, with the fields below marked exported.",
        "",
        table(["field", "kind", "sensitive", "exported"], rows),
        "",
        (
            "Left out of this export (sensitive): " + ", ".join(user_text(n) for n in left_out) + "."
            if left_out
            else "Every field collected is in this export."
        ),
        "",
    ]
    return "\n" + "\n".join(out).rstrip() + "\n"
