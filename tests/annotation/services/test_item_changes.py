"""Changing items after import: retiring one (never served again, its judgments kept and marked), replacing the
text of an unjudged one, and the re-upload in "update existing items" mode with its per-line report."""

import io
import json

import pytest
from django.core.exceptions import ValidationError

from annotation.models import Assignment, Item, Judgment
from annotation.services import assignment_next_for_rater, judgment_submit
from annotation.services.item_changes import item_import_update, item_retire, item_text_replace, item_unretire
from audit.models import AuditEntry
from core.import_records import ImportRejected
from tests.annotation.factories import ItemFactory, JudgmentFactory
from tests.annotation.rating import add_raters, full_values, rating_project

pytestmark = pytest.mark.django_db


def _jsonl(*lines) -> io.BytesIO:
    return io.BytesIO("".join((json.dumps(line) if isinstance(line, dict) else line) + "\n" for line in lines).encode())


def _line(external_id, text="input", outputs=(("bart", "a summary"),), **extra) -> dict:
    return {
        "external_id": external_id,
        "input": text,
        "outputs": [{"system": system, "text": out} for system, out in outputs],
        **extra,
    }


def test_a_retired_item_is_never_served_again_and_its_judgments_stay():
    project = rating_project(n_items=2, n_target=2)
    r1, r2 = add_raters(project, 2)
    screen = assignment_next_for_rater(project_id=project.pk, rater=r1)
    first, second = sorted(Item.objects.filter(project=project), key=lambda item: item.pk != screen.item_id)
    judgment_submit(assignment_id=screen.pk, rater=r1, values=full_values(screen))

    item_retire(project=project, item=first, by=r1)

    # r2 would have been served the started item first; now only the other one is open.
    served = assignment_next_for_rater(project_id=project.pk, rater=r2)
    assert served.item_id == second.pk
    judgment_submit(assignment_id=served.pk, rater=r2, values=full_values(served))
    assert assignment_next_for_rater(project_id=project.pk, rater=r2) is None
    assert Judgment.objects.filter(item=first).count() == 1
    first.refresh_from_db()
    assert first.is_retired and AuditEntry.objects.filter(action="item.retire", target=first.external_id).exists()

    item_unretire(project=project, item=first, by=r1)
    assert assignment_next_for_rater(project_id=project.pk, rater=r2).item_id == first.pk


def test_retiring_releases_the_lease_a_rater_holds_on_it():
    project = rating_project(n_items=1)
    (rater,) = add_raters(project)
    lease = assignment_next_for_rater(project_id=project.pk, rater=rater)
    item_retire(project=project, item=lease.item, by=None)
    lease.refresh_from_db()
    lease.item.refresh_from_db()
    assert lease.status == Assignment.Status.EXPIRED and lease.item.n_leased == 0
    assert assignment_next_for_rater(project_id=project.pk, rater=rater) is None


def test_retired_gold_items_are_not_served_as_checks():
    project = rating_project(n_items=5, n_gold=1, gold_rate=0.5)
    gold = Item.objects.get(project=project, gold__isnull=False)
    item_retire(project=project, item=gold, by=None)
    (rater,) = add_raters(project)
    served = []
    while (screen := assignment_next_for_rater(project_id=project.pk, rater=rater)) is not None:
        served.append(screen.item_id)
        judgment_submit(assignment_id=screen.pk, rater=rater, values=full_values(screen))
    assert len(served) == 5 and gold.pk not in served


def test_retiring_twice_says_so():
    item = ItemFactory()
    item_retire(project=item.project, item=item, by=None)
    with pytest.raises(ValidationError, match="retired already"):
        item_retire(project=item.project, item=item, by=None)
    item_unretire(project=item.project, item=item, by=None)
    with pytest.raises(ValidationError, match="is not retired"):
        item_unretire(project=item.project, item=item, by=None)


def test_the_text_of_an_unjudged_item_is_replaced_and_its_lease_released():
    project = rating_project(n_items=1, systems=["bart", "pegasus"])
    item = Item.objects.get(project=project)
    (rater,) = add_raters(project)
    lease = assignment_next_for_rater(project_id=project.pk, rater=rater)

    changed = item_text_replace(
        project=project, item=item, input="new source", output_texts=["new a", "new b"], by=None
    )

    assert changed == ["input", "outputs"]
    item.refresh_from_db()
    assert item.input == "new source" and item.n_leased == 0
    assert [(o.system, o.text) for o in item.outputs.order_by("position")] == [("bart", "new a"), ("pegasus", "new b")]
    lease.refresh_from_db()
    assert lease.status == Assignment.Status.EXPIRED
    entry = AuditEntry.objects.get(action="item.replace")
    assert entry.target == item.external_id and entry.detail == {"changed": ["input", "outputs"]}


def test_a_judged_item_refuses_a_new_text_and_says_what_to_do():
    judgment = JudgmentFactory()
    item = judgment.item
    with pytest.raises(ValidationError) as caught:
        item_text_replace(project=item.project, item=item, input="other", output_texts=["x"], by=None)
    assert caught.value.message_dict["item"] == [
        f"Item {item.external_id!r} has 1 judgment, so its text can no longer change: retire it and import the "
        f"new text under a new external id."
    ]
    before = item.input
    item.refresh_from_db()
    assert item.input == before and not AuditEntry.objects.exists()


@pytest.mark.parametrize(
    ("input_text", "outputs", "field", "message"),
    [
        ("", ["x"], "input", "input is missing"),
        ("fine", ["x", "y"], "outputs", "give the text of each of the item's 1 outputs"),
    ],
)
def test_a_replacement_the_import_would_refuse_is_refused_by_field(input_text, outputs, field, message):
    item = ItemFactory()
    with pytest.raises(ValidationError) as caught:
        item_text_replace(project=item.project, item=item, input=input_text, output_texts=outputs, by=None)
    assert caught.value.message_dict[field] == [message]


def test_update_mode_adds_rewrites_keeps_and_refuses_by_line():
    project = rating_project(n_items=0)
    ItemFactory(project=project, external_id="same", input="input", systems=["bart"])
    Item.objects.filter(external_id="same").update(input="input")
    same = Item.objects.get(external_id="same")
    same.outputs.update(text="a summary")
    ItemFactory(project=project, external_id="edit", systems=["bart"])
    judged = JudgmentFactory(item=ItemFactory(project=project, external_id="judged", systems=["bart"])).item

    report = item_import_update(
        project=project,
        by=None,
        file_name="v2.jsonl",
        stream=_jsonl(
            _line("same"),
            _line("edit", "better input", (("bart", "better summary"),), subgroup="news"),
            _line("judged", "changed"),
            _line("brand-new"),
        ),
    )

    assert report.as_dict() == {
        "added": 1,
        "updated": 1,
        "unchanged": 1,
        "refused": 1,
        "lines": [
            {"line": 1, "external_id": "same", "outcome": "unchanged", "detail": ""},
            {"line": 2, "external_id": "edit", "outcome": "updated", "detail": "input, subgroup, outputs"},
            {
                "line": 3,
                "external_id": "judged",
                "outcome": "refused",
                "detail": "Item 'judged' has 1 judgment, so its text can no longer change: retire it and import the "
                "new text under a new external id.",
            },
            {"line": 4, "external_id": "brand-new", "outcome": "added", "detail": ""},
        ],
    }
    edit = Item.objects.get(project=project, external_id="edit")
    assert edit.input == "better input" and edit.subgroup == "news"
    assert list(edit.outputs.values_list("system", "text")) == [("bart", "better summary")]
    assert Item.objects.get(pk=judged.pk).input == judged.input
    assert Item.objects.get(project=project, external_id="brand-new").n_target == 1
    entry = AuditEntry.objects.get(action="items.update")
    assert entry.detail == {"added": 1, "updated": 1, "unchanged": 1, "refused": 1, "format": "jsonl"}


def test_update_mode_refuses_turning_an_item_into_gold():
    project = rating_project(n_items=0)
    ItemFactory(project=project, external_id="plain", systems=["bart"])
    report = item_import_update(project=project, by=None, stream=_jsonl(_line("plain", gold={"fluency": 3})))
    assert report.as_dict()["lines"][0]["outcome"] == "refused"
    assert "cannot become or stop being a gold" in report.as_dict()["lines"][0]["detail"]
    assert Item.objects.get(project=project, external_id="plain").gold is None


def test_update_mode_still_refuses_a_malformed_file_whole():
    project = rating_project(n_items=0)
    ItemFactory(project=project, external_id="edit", systems=["bart"])
    with pytest.raises(ImportRejected) as caught:
        item_import_update(
            project=project, by=None, stream=_jsonl(_line("edit", "changed"), _line("new"), "{not json", _line("new"))
        )
    assert [line for line, _ in caught.value.report.errors] == [3, 4]
    assert "duplicate external_id 'new' (first on line 2)" in caught.value.report.errors[1][1]
    assert Item.objects.filter(project=project).count() == 1
    assert Item.objects.get(project=project, external_id="edit").input != "changed"
