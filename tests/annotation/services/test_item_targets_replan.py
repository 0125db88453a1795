"""Re-planning item targets after the lead changes raters per item or the double-annotated share before
rating starts: the import's rule, in id order; gold and repeats keep 0, degraded copies follow."""

import pytest

from annotation.services.item_import import item_targets_replan
from tests.annotation.factories import ItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def test_targets_follow_the_new_settings_like_an_import_would():
    project = ProjectFactory(raters_per_item=1, double_annotation_share=0)
    items = [ItemFactory(project=project, external_id=f"i{n}") for n in range(4)]
    gold = ItemFactory(project=project, external_id="g", gold={"fluency": 3}, n_target=0)
    degraded = ItemFactory(project=project, external_id="i1-degraded", degraded_from=items[1])
    repeat = ItemFactory(project=project, external_id="i0-repeat", repeat_of=items[0], n_target=0)
    project.raters_per_item, project.double_annotation_share = 3, 0.5
    project.save()

    assert item_targets_replan(project=project) == 4

    for item in (*items, gold, degraded, repeat):
        item.refresh_from_db()
    # the k-th item is doubled when ⌊(k+1)·s⌋ > ⌊k·s⌋: k = 1 and 3 for s = 1/2
    assert [i.n_target for i in items] == [1, 3, 1, 3]
    assert (gold.n_target, degraded.n_target, repeat.n_target) == (0, 3, 0)
