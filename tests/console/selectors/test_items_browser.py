"""The item browser's filters, counts and query budget, on the known project."""

import pytest

from annotation.models import ItemFlag
from console.selectors.items_browser import ItemFilters, item_browser_page, item_detail_for_lead
from tests.console.fixtures import known_project

pytestmark = pytest.mark.django_db


def _ids(project, **filters):
    return [item.external_id for item in item_browser_page(project, ItemFilters(**filters))["page"]]


@pytest.fixture
def world():
    world = known_project()
    ItemFlag.objects.create(project=world.project, item=world.items["i8"], rater=world.raters["r3"], reason="broken")
    return world


def test_status_filters_partition_the_items(world):
    project = world.project
    assert _ids(project, status="complete") == ["i0", "i1", "i2", "i3"]
    assert _ids(project, status="in_progress") == ["i4", "i5", "i6"]
    assert _ids(project, status="untouched") == ["i7", "i8", "i9"]
    assert _ids(project, status="gold") == ["g0", "g1"]
    assert _ids(project, status="flagged") == ["i8"]


def test_search_subgroup_and_system_filters_combine(world):
    project = world.project
    assert _ids(project, search="I1") == ["i1"]
    assert _ids(project, subgroup="news") == ["i1", "i3", "i5", "i7", "i9"]
    assert _ids(project, system="pegasus") == ["i5", "i6", "i7", "i8", "i9"]
    assert _ids(project, subgroup="news", system="pegasus", status="untouched") == ["i7", "i9"]


def test_counts_per_status_follow_every_filter_but_the_status(world):
    result = item_browser_page(world.project, ItemFilters(system="pegasus", status="complete"))
    assert result["counts"] == {
        "total": 5,
        "untouched": 3,
        "in_progress": 2,
        "complete": 0,
        "gold": 0,
        "control": 0,
        "flagged": 1,
        "retired": 0,
    }
    assert result["page"].paginator.count == 0
    assert result["subgroups"] == ["news", "sport"] and result["systems"] == ["bart", "pegasus", "sysA"]


def test_rows_carry_status_systems_and_flag(world):
    rows = {item.external_id: item for item in item_browser_page(world.project, ItemFilters())["page"]}
    assert rows["i8"].is_flagged and rows["i8"].status == "untouched" and not rows["i7"].is_flagged
    assert [o.system for o in rows["i0"].outputs.all()] == ["bart"]
    assert rows["g0"].status_label == "Gold"


def test_pages(world):
    first = item_browser_page(world.project, ItemFilters(), page=1, page_size=5)["page"]
    last = item_browser_page(world.project, ItemFilters(), page=3, page_size=5)["page"]
    assert first.paginator.num_pages == 3 and [i.external_id for i in last] == ["g0", "g1"]
    assert item_browser_page(world.project, ItemFilters(), page="junk", page_size=5)["page"].number == 1


def test_an_unknown_status_is_refused():
    with pytest.raises(ValueError, match="unknown status 'done'"):
        ItemFilters(status="done")


def test_query_count_does_not_grow_with_the_items(django_assert_num_queries):
    small = known_project().project
    with django_assert_num_queries(6):
        list(item_browser_page(small, ItemFilters(subgroup="news"))["page"])
    large = known_project(extra_untouched=200).project
    with django_assert_num_queries(6):
        page = item_browser_page(large, ItemFilters(subgroup="news"))["page"]
        assert len([o.system for item in page for o in item.outputs.all()]) == 50


def test_item_detail_holds_every_judgment_current_and_revised(world, django_assert_num_queries):
    with django_assert_num_queries(5):
        detail = item_detail_for_lead(world.project, "i0")
    rows = [(j.rater_name, j.criterion.name, j.output.system, j.value, j.is_current) for j in detail["judgments"]]
    assert rows == [
        ("known-r1", "fluency", "bart", 4, True),
        ("known-r2", "fluency", "bart", 2, False),
        ("known-r2", "fluency", "bart", 5, True),
    ]
    assert detail["item"].status == "complete" and [o.system for o in detail["outputs"]] == ["bart"]
