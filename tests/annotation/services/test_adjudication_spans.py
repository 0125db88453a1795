"""Adjudicating an MQM project through the services: spans in the source count on their own side, the pooled
proposals carry the raters' categories, and the adjudicated value is the penalty of the spans the adjudicator
keeps under the project's weights; rejected ones weigh nothing."""

import pytest
from django.core.exceptions import ValidationError

from annotation.models import AdjudicatedSpan, AdjudicatedValue, AdjudicationCase, ErrorSpan, Membership
from annotation.selectors.adjudication import adjudication_screen
from annotation.services.adjudication import (
    AdjudicationRule,
    adjudication_next,
    adjudication_rule_set,
    adjudication_submit,
)
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

SOURCE = "The cat sat on the mat."
OUTPUT = "Le chat est assis sur le tapis."
MISTRANSLATION = "Accuracy/Mistranslation"


def _mqm(marks_per_item: dict[str, tuple]):
    """An MQM project whose two raters marked, per item, the spans given as (side, start, end, severity)."""
    project = ProjectFactory(task_type="mqm", criteria=["errors"])
    raters = [UserFactory(username=f"mqm-r{k}") for k in range(2)]
    for name, marks in marks_per_item.items():
        item = ItemFactory(project=project, external_id=name, input=SOURCE, systems=["mt"])
        item.outputs.update(text=OUTPUT)
        for rater, (side, start, end, severity) in zip(raters, marks, strict=True):
            judgment = JudgmentFactory(item=item, rater=rater, value=5.0 if severity == "major" else 1.0)
            category = "Source error" if side == "source" else MISTRANSLATION
            ErrorSpan.objects.create(
                judgment=judgment, side=side, start=start, end=end, severity=severity, category=category
            )
    adjudicator = UserFactory(username="mqm-adjudicator")
    MembershipFactory(project=project, user=adjudicator, role=Membership.Role.ADJUDICATOR)
    return project, adjudicator


def test_spans_on_another_side_do_not_overlap_and_the_penalty_is_the_kept_spans():
    project, adjudicator = _mqm(
        {
            # "chat" in the output, and [3, 7) of the source ("cat "): the same offsets, another text
            "sides": (("target", 3, 7, "major"), ("source", 3, 7, "minor")),
            # "chat" and "chat est": overlapping, the severities differ (penalties 5 and 1)
            "severity": (("target", 3, 7, "major"), ("target", 3, 11, "minor")),
        }
    )

    assert adjudication_rule_set(project=project, rule=AdjudicationRule(True, None)) == 1
    assert AdjudicationCase.objects.get().item.external_id == "sides"
    # with a threshold of 3, the penalties 5 and 1 queue the other item too
    assert adjudication_rule_set(project=project, rule=AdjudicationRule(True, 3.0)) == 1

    case = adjudication_next(project_id=project.pk, adjudicator=adjudicator)
    assert case.item.external_id == "sides"
    [output] = adjudication_screen(case)["item"]["outputs"]
    assert output["proposed_spans"] == [
        {"side": "source", "start": 3, "end": 7, "severity": "minor", "category": "Source error"},
        {"side": "target", "start": 3, "end": 7, "severity": "major", "category": MISTRANSLATION},
    ]
    source, target = output["proposed_spans"]

    # a proposal accepted with a changed category is refused, naming it
    with pytest.raises(ValidationError, match="an accepted proposal is kept as proposed"):
        adjudication_submit(
            adjudicator=adjudicator,
            case_id=case.pk,
            values=[
                {
                    "criterion": "errors",
                    "value": {
                        "spans": [
                            {**source, "origin": "rejected", "proposal": 0},
                            {**target, "category": "Fluency/Grammar", "origin": "accepted", "proposal": 1},
                        ]
                    },
                }
            ],
        )
    assert not AdjudicatedValue.objects.exists()

    adjudication_submit(
        adjudicator=adjudicator,
        case_id=case.pk,
        values=[
            {
                "criterion": "errors",
                "value": {
                    "spans": [
                        {**source, "origin": "rejected", "proposal": 0},
                        {**target, "severity": "minor", "origin": "edited", "proposal": 1},
                    ]
                },
            }
        ],
    )

    # the minor mistranslation weighs 1 (WMT's weights); the rejected source error nothing
    assert AdjudicatedValue.objects.get(case=case).value == 1.0
    assert sorted(AdjudicatedSpan.objects.values_list("side", "severity", "category", "origin")) == [
        ("source", "minor", "Source error", "rejected"),
        ("target", "minor", MISTRANSLATION, "edited"),
    ]
