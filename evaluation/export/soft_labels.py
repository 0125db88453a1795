"""Soft labels in the layout of the LeWiDi shared task (3rd edition, 2025): one JSON file per categorical
criterion, one entry per unit with every individual answer under its rater's pseudonym and the answers'
distribution, and the data card's section that describes them."""

import re

from .card import table, user_text
from .card_facts import CardFacts

FOLDER = "lewidi"
SPLIT = "train"


def file_names(criteria: list[str]) -> dict[str, str]:
    """``lewidi/<criterion>_train.json`` per criterion, named as LeWiDi names its files, unique."""
    names, used = {}, set()
    for criterion in criteria:
        base = re.sub(r"\W+", "_", criterion).strip("_") or "criterion"
        name, k = base, 2
        while name in used:
            name, k = f"{base}_{k}", k + 1
        used.add(name)
        names[criterion] = f"{FOLDER}/{name}_{SPLIT}.json"
    return names


def label(value: float) -> str:
    return f"{value:g}"


def entries(units, *, criterion: str, categories: list[float], lang: str) -> dict[str, dict]:
    """LeWiDi entries keyed by unit id (``item`` where an item has one unit, else ``item/system``).

    ``units``: ``(item, system, text, subgroup, answers)`` in order, ``text`` the dict shown to raters and
    ``answers`` ``[(rater, value)]``; the soft label is the share of answers per category, every declared
    category present."""
    units = list(units)
    per_item: dict[str, int] = {}
    for item, *_ in units:
        per_item[item] = per_item.get(item, 0) + 1
    out = {}
    for item, system, text, subgroup, answers in units:
        counts = dict.fromkeys(map(label, categories), 0)
        for _, value in answers:
            counts[label(value)] += 1
        key = item if per_item[item] == 1 else f"{item}/{system}"
        out[key] = {
            "annotation task": criterion,
            "text": text,
            "number of annotators": len({rater for rater, _ in answers}),
            "annotators": ",".join(rater for rater, _ in answers),
            "number of annotations": len(answers),
            "annotations": {rater: label(value) for rater, value in answers},
            "soft_label": {k: n / len(answers) for k, n in counts.items()},
            "split": SPLIT,
            "lang": lang,
            "other_info": {"item": item, "system": system, "subgroup": subgroup},
        }
    return out


def card_text(facts: CardFacts) -> str:
    """The section as text to follow the card ("" without soft labels)."""
    lines = card_section(facts)
    return "\n" + "\n".join(lines).rstrip() + "\n" if lines else ""


def card_section(facts: CardFacts) -> list[str]:
    """The card's section on the soft labels, when the export has them."""
    soft = facts.soft_labels
    if soft is None:
        return []
    rows = [[user_text(f.criterion), f"`{f.path}`", f.units] for f in soft.files]
    out = [
        "## Soft labels (LeWiDi layout)",
        "",
        "Every individual answer and the answers' distribution per unit, in the JSON layout of the "
        "Learning with Disagreements shared task (LeWiDi 2025): one file per criterion whose answers are "
        "categories, a JSON object keyed by unit (the item's `external_id`, or `external_id/system` where "
        "an item's outputs were rated one by one). From the judgments used for scores and agreement (no "
        "gold items, no excluded raters)." + (f" {soft.category_note}" if soft.category_note else ""),
        "",
        table(["criterion", "file", "units"], rows) if rows else "No criterion with categorical answers.",
        "",
        table(
            ["field", "meaning"],
            [
                ["`annotation task`", "The criterion."],
                ["`text`", "What the raters were shown: the input and the outputs on the screen, by system."],
                ["`number of annotators`, `annotators`", "The raters of the unit, comma-separated pseudonyms."],
                ["`number of annotations`, `annotations`", "Each rater's answer, as a string, by pseudonym."],
                ["`soft_label`", "Share of the answers per category, every category of the scale listed."],
                ["`split`, `lang`", "`train`; the export's language when it names exactly one."],
                ["`other_info`", "`item`, `system` (the output judged) and `subgroup`."],
            ],
        ),
        "",
        "LeWiDi scores a predicted soft label by its Manhattan distance to this one, "
        "Σₖ |pₖ − tₖ| averaged over units (and, for ordinal scales, by the Wasserstein distance).",
        "",
    ]
    return out
