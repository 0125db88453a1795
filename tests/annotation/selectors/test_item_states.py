"""Item states are defined once: every item is in exactly one, the row-level answer agrees with the SQL one,
and the project page, the console's progress page and its item browser count the same."""

import pytest

from annotation.models import Item
from annotation.selectors.item_states import ITEM_STATES, item_state
from annotation.selectors.progress import project_progress
from console.selectors.items_browser import ItemFilters, item_browser_page
from console.selectors.progress import progress_summary
from tests.annotation.factories import ItemFactory
from tests.console.fixtures import NOW, known_project

pytestmark = pytest.mark.django_db


def with_controls():
    world = known_project()
    # A repeat copy wants no rater of its own (never queued); a degraded copy is queued like its original.
    ItemFactory(project=world.project, external_id="i1-repeat", repeat_of=world.items["i1"], n_target=0)
    ItemFactory(
        project=world.project, external_id="i2-degraded", degraded_from=world.items["i2"], n_target=2, n_judged=1
    )
    return world


def test_every_item_is_in_exactly_one_state_and_the_row_agrees_with_the_query():
    project = with_controls().project
    members = {
        state: set(Item.objects.filter(project=project).filter(condition).values_list("external_id", flat=True))
        for state, condition in ITEM_STATES.items()
    }
    for item in Item.objects.filter(project=project):
        holding = [state for state, names in members.items() if item.external_id in names]
        assert holding == [item_state(item)], item.external_id
    assert members["control"] == {"i1-repeat", "i2-degraded"}
    assert members["in_progress"] == {"i4", "i5", "i6"}  # i6 is only leased


def test_project_page_progress_page_and_item_browser_count_alike():
    project = with_controls().project
    page = project_progress(project)
    summary = progress_summary(project, now=NOW).items
    browser = item_browser_page(project, ItemFilters())["counts"]
    expected = {"complete": 4, "in_progress": 3, "untouched": 3, "gold": 2, "control": 2}
    assert {state: getattr(page, f"n_{state}") for state in ITEM_STATES} == expected
    assert {state: getattr(summary, state) for state in ITEM_STATES} == expected
    assert {state: browser[state] for state in ITEM_STATES} == expected
    assert page.n_items == summary.n_items == browser["total"] == 14
    assert summary.n_target_items == 10
    # The degraded copy's two slots are rater work still to do; the repeat copy wants none.
    assert summary.slots_target == 22
