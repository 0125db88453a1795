"""In a project rating per turn, each assistant turn of an output is a unit of agreement of its own, and the whole
output another: the records' unit key holds the turn."""

import numpy as np
import pytest

from agreement.models import AgreementSnapshot
from agreement.selectors.judgment_records import judgment_records_for_project, unit_key
from agreement.services.snapshots import snapshot_compute_for_project
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def _project_rated_by_two(rating_unit: str, turns=(0, 2)):
    project = ProjectFactory(rating_unit=rating_unit, criteria=["helpful"])
    raters = [UserFactory(), UserFactory()]
    for rater in raters:
        MembershipFactory(project=project, user=rater)
    items = [ItemFactory(project=project) for _ in range(6)]
    for k, item in enumerate(items):
        for rater in raters:
            for turn in turns:
                # the raters agree on turn 0 and split on turn 2 (one point apart)
                value = 1 + (k + turn) % 5 if turn == 0 or rater == raters[0] else 1 + (k + turn + 1) % 5
                JudgmentFactory(item=item, rater=rater, turn=turn, value=float(value))
    return project, items


def test_each_turn_is_a_unit_of_its_own():
    project, items = _project_rated_by_two("turn")
    records = judgment_records_for_project(project)
    outputs = [item.outputs.get().pk for item in items]
    assert sorted(set(records.unit.tolist())) == sorted(unit_key(o, t) for o in outputs for t in (0, 2))
    # every unit holds one value per rater
    units, counts = np.unique(np.stack([records.unit, records.rater]), axis=1, return_counts=True)
    assert counts.max() == 1 and len(units[0]) == len(records)


def test_the_weekly_snapshot_counts_turns_as_units():
    project, items = _project_rated_by_two("turn")
    snapshot_compute_for_project(project_id=project.pk)
    alpha = AgreementSnapshot.objects.get(
        project=project,
        scope="criterion",
        window="cumulative",
        statistic="krippendorff_alpha_ordinal",
        week_start=AgreementSnapshot.objects.filter(project=project).order_by("-week_start").first().week_start,
    )
    assert alpha.n_units == 2 * len(items) and alpha.n_raters == 2
    assert alpha.value is not None and alpha.value < 1


def test_a_whole_output_project_keeps_output_ids_as_units():
    project = ProjectFactory(criteria=["helpful"])
    judgment = JudgmentFactory(item=ItemFactory(project=project))
    assert judgment_records_for_project(project).unit.tolist() == [judgment.output_id]
