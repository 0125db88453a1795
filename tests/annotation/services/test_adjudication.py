"""Adjudication for every registered task type: the rule as the type's values declare it, imported judgments
queue a disagreeing item, and an adjudicator who sends back one rater's answers as the screen shows them
stores exactly that rater's coded values (error spans: tests/annotation/services/test_adjudication_spans.py)."""

import io
import json

import pytest
from django.core.exceptions import ValidationError

from annotation.models import AdjudicatedValue, AdjudicationCase, Judgment, Membership
from annotation.selectors.adjudication import adjudication_screen
from annotation.services import judgment_import
from annotation.services.adjudication import (
    AdjudicationRule,
    adjudication_next,
    adjudication_rule_check,
    adjudication_rule_set,
    adjudication_submit,
)
from annotation.task_types import REGISTRY
from annotation.task_types.facts import CATEGORIES_DIFFER, POINTS, SPANS, SPANS_APART, SPREAD, Values, spans_apart
from tests.annotation.factories import ItemFactory, MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

# Two raters' answers, as a judgment import line gives them: far apart on every type.
ANSWERS = {"likert": (1, 5), "rankme": (10.0, 90.0), "pairwise": ("bart", "t5")}


def test_values_disagree_by_spread_or_by_category():
    spread = Values(POINTS, "int", "")
    categories = Values(POINTS, "int", "", disagreement=CATEGORIES_DIFFER)

    assert not spread.disagree([3.0], None)  # one rater cannot disagree
    assert spread.disagree([3.0, 4.0], None) and not spread.disagree([3.0, 3.0], None)
    assert not spread.disagree([3.0, 4.0, 2.0], 2.0) and spread.disagree([1.0, 4.0], 2.0)
    assert categories.disagree([1.0, 2.0], 5.0)  # a threshold means nothing to categories
    assert spread.takes_threshold and not categories.takes_threshold
    assert SPREAD != CATEGORIES_DIFFER


def test_spans_disagree_when_one_raters_span_overlaps_none_of_anothers():
    rule = Values(SPANS, "float", "", disagreement=SPANS_APART)
    chat, chien, tapis = ("target", 3, 7), ("target", 5, 10), ("target", 20, 25)
    missing_at_7 = ("target", 7, 7)  # something missing where "chat" ends: borders it, so overlaps it

    assert not spans_apart([(chat,), (chien,)])  # overlapping spans agree, whatever their lengths
    assert not spans_apart([(chat,), (missing_at_7,)])
    assert spans_apart([(chat,), (tapis,)])
    assert spans_apart([(chat, tapis), (chien,)])  # "tapis" is overlapped by nothing of the second rater's
    assert spans_apart([(chat,), ()])  # an error against no error
    assert not spans_apart([(), ()])  # no error twice
    assert spans_apart([(("source", 3, 7),), (chat,)])  # the same offsets in the source are another place
    assert spans_apart([(chat,), (chien,), (tapis,)])  # a third rater alone elsewhere
    # Values: a lone rater never disagrees; a threshold adds values further apart than it; without one the
    # values are not read
    assert not rule.disagree([50.0], 10.0, [(chat,)])
    assert not rule.disagree([10.0, 90.0], None, [(chat,), (chien,)])
    assert rule.disagree([10.0, 90.0], 30.0, [(chat,), (chien,)])
    assert not rule.disagree([50.0, 60.0], 30.0, [(chat,), (chien,)])
    assert rule.disagree([50.0, 50.0], 30.0, [(chat,), (tapis,)])
    assert rule.takes_threshold
    for task_type in REGISTRY.values():
        if task_type.values.kind == SPANS:
            assert task_type.values.disagreement == SPANS_APART


@pytest.mark.parametrize(
    "slug", [slug for slug, t in REGISTRY.items() if t.values.kind != SPANS and t.values.adjudicated]
)
def test_a_disagreeing_import_is_queued_and_one_raters_answer_round_trips(slug):
    project = ProjectFactory(task_type=slug, criteria=["overall", "fluency"])
    item = ItemFactory(project=project, external_id="doc", systems=["bart", "t5"])
    ItemFactory(project=project, external_id="calm", systems=["bart", "t5"])
    adjudication_rule_set(project=project, rule=AdjudicationRule(True, None))
    per_output = REGISTRY[slug].per_output
    lines = []
    for rater, value in zip(("r1", "r2"), ANSWERS[slug], strict=True):
        for criterion in ("overall", "fluency"):
            for system in ("bart", "t5") if per_output else (None,):
                for external_id, given in (("doc", value), ("calm", ANSWERS[slug][0])):
                    line = {"item": external_id, "rater": rater, "criterion": criterion, "value": given}
                    lines.append(line | ({"system": system} if system else {}))
    project.refresh_from_db()

    judgment_import(project=project, stream=io.BytesIO("\n".join(map(json.dumps, lines)).encode()))

    case = AdjudicationCase.objects.get()
    assert case.item == item and case.criteria == ["fluency", "overall"]
    adjudicator = UserFactory(username=f"adjudicator-{slug}")
    MembershipFactory(project=project, user=adjudicator, role=Membership.Role.ADJUDICATOR)
    assert adjudication_next(project_id=project.pk, adjudicator=adjudicator) == case
    screen = adjudication_screen(case)
    assert len(screen["answers"]) == 2
    first = [{k: v[k] for k in ("criterion", "position", "value")} for v in screen["answers"][0]["values"]]

    adjudication_submit(adjudicator=adjudicator, case_id=case.pk, values=first)

    stored = sorted(AdjudicatedValue.objects.values_list("output_id", "criterion_id", "value", "label"))
    by_rater = {
        r: sorted(
            Judgment.objects.filter(item=item, rater__username__endswith=r).values_list(
                "output_id", "criterion_id", "value", "label"
            )
        )
        for r in ("r1", "r2")
    }
    assert stored in by_rater.values()


@pytest.mark.parametrize("slug", [slug for slug, t in REGISTRY.items() if t.values.adjudicated])
def test_the_rule_takes_a_threshold_only_where_the_values_are_not_categories(slug):
    project = ProjectFactory(task_type=slug)
    if REGISTRY[slug].values.takes_threshold:
        assert adjudication_rule_check(project, enabled=True, threshold=2) == AdjudicationRule(True, 2.0)
    else:
        with pytest.raises(ValidationError, match="takes no threshold"):
            adjudication_rule_check(project, enabled=True, threshold=2)
    for bad in (float("nan"), float("inf"), -0.5, 10**20):
        with pytest.raises(ValidationError):
            adjudication_rule_check(project, enabled=True, threshold=bad)


@pytest.mark.parametrize("slug", [slug for slug, t in REGISTRY.items() if not t.values.adjudicated])
def test_a_type_whose_answers_the_adjudicator_cannot_take_refuses_the_rule(slug):
    project = ProjectFactory(task_type=slug)

    with pytest.raises(ValidationError) as refused:
        adjudication_rule_check(project, enabled=True, threshold=None)

    assert "cannot be adjudicated" in str(refused.value.message_dict["enabled"])
    assert adjudication_rule_check(project, enabled=False, threshold=None) == AdjudicationRule(False, None)
    assert not REGISTRY[slug].values.disagree([0.0, 100.0], None)
