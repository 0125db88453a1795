"""Repeat items: served again only to a rater who judged the original some screens before (pairwise with the
sides swapped); consistency and flip rate per rater; repeats count in no result or agreement."""

import random

import pytest
from django.core.exceptions import ValidationError

from agreement.selectors.judgment_records import judgment_records_for_project
from annotation.models import Assignment, Item
from annotation.selectors.quality import repeat_consistency
from annotation.services import assignment_next_for_rater, judgment_submit
from annotation.services.assignment import REPEAT_GAP
from annotation.services.controls import repeat_controls_create
from evaluation.selectors import included_judgments
from tests.annotation.factories import ItemFactory, JudgmentFactory
from tests.annotation.rating import add_raters, full_values, rating_project

pytestmark = pytest.mark.django_db


def run(project, rater, answer, seed=0):
    """The rater judges until nothing is left; ``answer(shown systems)`` gives the pairwise value."""
    rng = random.Random(seed)
    while (assignment := assignment_next_for_rater(project_id=project.pk, rater=rater, rng=rng)) is not None:
        systems = list(Item.objects.get(pk=assignment.item_id).outputs.values_list("system", flat=True))
        shown = [systems[p] for p in assignment.shown_order]
        judgment_submit(rater=rater, assignment_id=assignment.pk, values=full_values(assignment, answer(shown)))


def pairwise_with_repeats(n_raters=2):
    project = rating_project(task_type="pairwise", n_items=12, n_target=n_raters, repeat_rate=0.5)
    repeat_controls_create(project=project, n=12, seed=0)
    return project, add_raters(project, n_raters)


def test_repeats_come_some_screens_after_their_original_with_the_sides_swapped():
    project, (rater, _) = pairwise_with_repeats()
    run(project, rater, lambda shown: "A")
    done = list(
        Assignment.objects.filter(rater=rater, status="done").select_related("item").order_by("completed_at", "id")
    )
    position = {a.item_id: k for k, a in enumerate(done)}
    repeats = [a for a in done if a.item.repeat_of_id]
    assert repeats, "the repeat rate served some repeats"
    for a in repeats:
        assert position[a.item.repeat_of_id] + REPEAT_GAP <= position[a.item_id]
        original = next(o for o in done if o.item_id == a.item.repeat_of_id)
        assert a.shown_order == list(reversed(original.shown_order))


def test_a_consistent_rater_keeps_answers_and_a_left_clicker_flips():
    project, (careful, left_clicker) = pairwise_with_repeats()
    run(project, careful, lambda shown: "A" if shown[0] == "sysA" else "B", seed=1)
    run(project, left_clicker, lambda shown: "A", seed=2)
    checks = repeat_consistency(project)
    assert checks[careful.pk].as_dict()["consistency"] == 1.0 and checks[careful.pk].flips == 0
    lazy = checks[left_clicker.pk].as_dict()
    assert lazy["n"] > 0 and lazy["consistency"] == 0.0 and lazy["flip_rate"] == 1.0


def test_repeats_count_in_no_result_and_no_agreement():
    project, (rater, _) = pairwise_with_repeats()
    run(project, rater, lambda shown: "tie")
    repeat_items = set(Item.objects.filter(repeat_of__isnull=False).values_list("id", flat=True))
    assert not repeat_items & set(included_judgments(project).values_list("item_id", flat=True))
    assert len(judgment_records_for_project(project)) == 12


def test_likert_consistency_is_the_same_category():
    project = rating_project(n_items=8, repeat_rate=0.6)
    repeat_controls_create(project=project, n=8, seed=3)
    (rater,) = add_raters(project)
    rng = random.Random(4)
    while (assignment := assignment_next_for_rater(project_id=project.pk, rater=rater, rng=rng)) is not None:
        item = Item.objects.get(pk=assignment.item_id)
        original = item.repeat_of_id or item.pk
        judgment_submit(
            rater=rater, assignment_id=assignment.pk, values=full_values(assignment, 5 if original % 2 else 1)
        )
    check = repeat_consistency(project)[rater.pk].as_dict()
    assert check["n"] > 0 and check["consistency"] == 1.0 and check["flip_rate"] is None


def test_repeats_are_created_reproducibly_and_never_queued():
    def picked(project):
        ids = list(project.items.order_by("id").values_list("id", flat=True))
        return [ids.index(c.repeat_of_id) for c in repeat_controls_create(project=project, n=2, seed=9)]

    project = rating_project(n_items=5)
    assert picked(project) == picked(rating_project(n_items=5))
    assert set(Item.objects.filter(repeat_of__isnull=False).values_list("n_target", flat=True)) == {0}
    with pytest.raises(ValidationError, match="real items"):
        repeat_controls_create(project=project, n=6)


def test_the_api_adds_repeats_for_leads(project, lead_client, rater_client):
    ItemFactory(project=project)
    url = f"/api/v1/projects/{project.pk}/qc/repeats/"
    assert rater_client.post(url, {"n": 1}, format="json").status_code == 403
    assert lead_client.post(url, {"n": 1}, format="json").status_code == 201
    assert lead_client.post(url, {"n": 5}, format="json").status_code == 400


def test_with_a_rankme_modulus_consistency_is_a_ratio_within_the_tenth_of_the_log_slider():
    project = rating_project(task_type="rankme", n_items=0, criteria=["quality"], rankme_modulus=100)
    original = ItemFactory(project=project, systems=["a", "b"], references=["r"])
    repeat = ItemFactory(project=project, systems=["a", "b"], references=["r"], repeat_of=original)
    (rater,) = add_raters(project)
    # 1000 then 1200: within a factor of 10**0.4; 10 then 40: four times, a different answer (though only 30 apart)
    for item, values in ((original, {"a": 1000, "b": 10}), (repeat, {"a": 1200, "b": 40})):
        for output in item.outputs.all():
            JudgmentFactory(item=item, output=output, rater=rater, value=values[output.system])

    check = repeat_consistency(project)[rater.pk].as_dict()

    assert (check["n"], check["consistency"]) == (2, 0.5)
