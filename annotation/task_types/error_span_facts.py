"""What the error-span types (ESA, MQM) declare alike: agreement on the coded values and on the spans, the
console's scale-less criterion, and the demo rater's spans."""

from .facts import AgreementPlan, Demo, Setup, SpanAgreement


def agreement_plan(severities: list[str]) -> AgreementPlan:
    """Agreement on the coded values (the main one: interval alpha) and on the spans themselves (``spans``)."""
    return AgreementPlan(
        "interval",
        ("krippendorff_alpha_interval", "icc_1_1"),
        ("krippendorff_alpha_interval",),
        None,
        spans=SpanAgreement(tuple(severities)),
    )


def setup(name: str, help_text: str, hint: str, demo: Demo) -> Setup:
    """One criterion per project, whose scale the type fixes (the console asks none)."""
    criterion = {"name": name, "scale_min": None, "scale_max": None, "labels": [], "help_text": help_text}
    return Setup(criterion, sample_outputs=1, hint=hint, demo=demo, has_scale=False)


def demo_spans(score: float, category: str = "") -> list[dict]:
    """A simulated rater's spans for an output they score ``score`` of 5: none for a 5, else an error on its first
    character, major below 3."""
    if score >= 5:
        return []
    return [
        {
            "start": 0,
            "end": 1,
            "severity": "major" if score < 3 else "minor",
            **({"category": category} if category else {}),
        }
    ]
