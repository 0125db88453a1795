"""Degraded controls: reproducible damaged copies for every task type, the per-rater one-sided test (equal to
scipy on the same numbers), the rule firing on a careless rater, and copies left out of results and agreement."""

import random

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from scipy.stats import binomtest, mannwhitneyu

from agreement.selectors.judgment_records import judgment_records_for_project
from annotation.models import Item, RaterAction
from annotation.selectors.quality import degraded_check
from annotation.services import (
    RaterPaused,
    assignment_next_for_rater,
    degraded_controls_create,
    judgment_submit,
    qc_rules_apply,
    qc_rules_update,
)
from annotation.services.controls import METHODS, degrade
from evaluation.selectors import included_judgments
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.annotation.rating import full_values

pytestmark = pytest.mark.django_db

TEXT = "The cat sat on the mat. It was a sunny day in the old town. Then the rain came down hard."


def project_with_items(task_type, n=6):
    project = ProjectFactory(task_type=task_type)
    for k in range(n):
        item = ItemFactory(project=project, external_id=f"doc{k}")
        for output in item.outputs.all():
            output.text = f"{TEXT} Item {k} says {output.system} here."
            output.save()
    return project


def texts(copies):
    return [[(o.system, o.text) for o in c.outputs.order_by("position")] for c in copies]


@pytest.mark.parametrize("task_type", ["likert", "rankme", "pairwise"])
def test_copies_are_reproducible_damaged_and_marked_for_every_task_type(task_type):
    first = degraded_controls_create(project=project_with_items(task_type), n=4, seed=7)
    again = degraded_controls_create(project=project_with_items(task_type), n=4, seed=7)
    assert texts(first) == texts(again)
    assert [c.meta["method"] for c in first] == list(METHODS)
    for copy in first:
        original = copy.degraded_from
        assert copy.gold is None and copy.input == original.input and copy.meta["original"] == original.external_id
        intact = {o.system: o.text for o in original.outputs.all()}
        outputs = list(copy.outputs.order_by("position"))
        if task_type == "pairwise":
            assert outputs[0].text == intact[outputs[0].system]
            assert outputs[1].system == outputs[0].system + " (degraded)" and outputs[1].text != outputs[0].text
        else:
            assert all(o.text != intact[o.system] for o in outputs)
    other_seed = degraded_controls_create(project=project_with_items(task_type), n=4, seed=8)
    assert texts(other_seed) != texts(first)


def test_each_method_damages_as_documented():
    rng = random.Random(0)
    assert degrade("a b c d e f", "truncate", rng) == "a b c"
    assert degrade("One. Two. Three.", "repeat_sentence", random.Random(1)).count(".") == 4
    shuffled = degrade("One. Two. Three.", "shuffle_sentences", random.Random(2))
    assert sorted(shuffled.split()) == ["One.", "Three.", "Two."] and shuffled != "One. Two. Three."
    swapped = degrade("w1 w2 w3 w4 w5 w6 w7 w8", "swap_phrase", random.Random(3), donor="x1 x2 x3")
    assert swapped.startswith("w1 ") and len(swapped.split()) == 8 and "x" in swapped
    with pytest.raises(ValueError, match="the methods are"):
        degrade("x", "burn", rng)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"n": 7}, "n"),
        ({"n": 0}, "n"),
        ({"n": 1, "methods": ["burn"]}, "methods"),
    ],
)
def test_impossible_requests_are_refused_and_write_nothing(kwargs, field):
    project = project_with_items("likert")
    with pytest.raises(ValidationError) as exc:
        degraded_controls_create(project=project, **kwargs)
    assert field in exc.value.message_dict
    assert not Item.objects.filter(degraded_from__isnull=False).exists()


def scored(project, rater, original_scores, copy_scores):
    copies = degraded_controls_create(project=project, n=len(copy_scores), seed=1)
    for copy, original_score, copy_score in zip(copies, original_scores, copy_scores, strict=True):
        JudgmentFactory(item=copy.degraded_from, rater=rater, value=original_score)
        JudgmentFactory(item=copy, rater=rater, value=copy_score)
    return copies


def test_the_p_value_is_scipys_mann_whitney_on_the_raters_normalised_scores():
    project = project_with_items("likert", n=8)
    rater = UserFactory()
    originals, damaged = [5, 4, 4, 5, 3], [2, 3, 1, 4, 2]
    scored(project, rater, originals, damaged)
    values = np.array(originals + damaged, dtype=float)
    z = (values - values.mean()) / values.std()
    check = degraded_check(project)[rater.pk]
    assert check.n_controls == 5
    assert check.p_value == pytest.approx(mannwhitneyu(z[5:], z[:5], alternative="less").pvalue)


def test_pairwise_p_value_is_the_one_sided_binomial_of_intact_wins():
    project = project_with_items("pairwise", n=6)
    rater = UserFactory()
    for k, copy in enumerate(degraded_controls_create(project=project, n=5, seed=2)):
        intact, broken = [o.system for o in copy.outputs.order_by("position")]
        JudgmentFactory(item=copy, rater=rater, value=0, label=broken if k == 0 else intact)
    check = degraded_check(project)[rater.pk]
    assert (check.intact_wins, check.degraded_wins) == (4, 1)
    assert check.p_value == pytest.approx(binomtest(4, 5, 0.5, alternative="greater").pvalue)


def test_the_rule_pauses_a_careless_rater_and_passes_a_careful_one():
    project = project_with_items("likert", n=12)
    careful, careless = UserFactory(username="careful"), UserFactory(username="careless")
    for user in (careful, careless):
        MembershipFactory(project=project, user=user)
    qc_rules_update(project=project, degraded_p_threshold=0.05, min_degraded_answered=5, action="pause")
    scored(project, careful, [5, 4, 5, 4, 5, 4], [1, 2, 1, 2, 2, 1])
    rng = random.Random(9)
    for copy in Item.objects.filter(project=project, degraded_from__isnull=False):
        JudgmentFactory(item=copy.degraded_from, rater=careless, value=rng.randint(1, 5))
        JudgmentFactory(item=copy, rater=careless, value=rng.randint(1, 5))

    assert qc_rules_apply(project=project, rater_id=careful.pk) == []
    (action,) = qc_rules_apply(project=project, rater_id=careless.pk)
    assert (action.kind, action.rule) == ("pause", "degraded")
    assert action.evidence["p_value"] > 0.05 and action.evidence["controls"] == 6
    assert RaterAction.objects.count() == 1


def test_copies_count_in_no_result_and_no_agreement():
    project = project_with_items("likert", n=4)
    rater = UserFactory()
    copies = scored(project, rater, [4, 5], [1, 2])
    copy_ids = {c.pk for c in copies}
    assert not copy_ids & set(included_judgments(project).values_list("item_id", flat=True))
    records = judgment_records_for_project(project)
    assert len(records) == 2  # the two originals' judgments only


def test_the_api_adds_copies_for_leads(project, lead_client, rater_client):
    for k in range(3):
        ItemFactory(project=project, external_id=f"d{k}")
    url = f"/api/v1/projects/{project.pk}/qc/degraded/"
    assert rater_client.post(url, {"n": 1}, format="json").status_code == 403
    response = lead_client.post(url, {"n": 2, "seed": 3, "methods": ["truncate"]}, format="json")
    assert response.status_code == 201 and response.json()["created"] == 2
    bad = lead_client.post(url, {"n": 5}, format="json")
    assert bad.status_code == 400 and "real items" in str(bad.json())
    assert lead_client.post(url, {"n": 1, "methods": ["burn"]}, format="json").status_code == 400


def test_submitting_a_copy_through_the_rater_loop_applies_the_rule():
    project = project_with_items("likert", n=12)
    rater = UserFactory(username="always-five")
    MembershipFactory(project=project, user=rater)
    degraded_controls_create(project=project, n=6, seed=4)
    qc_rules_update(project=project, degraded_p_threshold=0.05, min_degraded_answered=5, action="pause")
    rng = random.Random(5)
    with pytest.raises(RaterPaused):
        for _ in range(18):  # every original and copy, then paused on asking for more
            assignment = assignment_next_for_rater(project_id=project.pk, rater=rater, rng=rng)
            if assignment is None:
                break
            judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, 5))
    (action,) = RaterAction.objects.filter(rater=rater)
    assert (action.kind, action.rule) == ("pause", "degraded") and action.evidence["controls"] >= 5
