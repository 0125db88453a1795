"""item_import: every error kind names its line and stores nothing; good files land whole."""

import io

import pytest

from annotation.models import Item, Output
from annotation.services import item_import
from core.import_records import ImportRejected
from tests.annotation.factories import ItemFactory, ProjectFactory
from tests.annotation.import_lines import item, jsonl

pytestmark = pytest.mark.django_db


def rejected(project, stream, fmt="jsonl") -> dict[int, str]:
    with pytest.raises(ImportRejected) as caught:
        item_import(project=project, stream=stream, fmt=fmt)
    assert Item.objects.filter(project=project).count() == 0, "a rejected import stored items"
    assert Output.objects.filter(item__project=project).count() == 0
    return {line: message for line, message in caught.value.report.errors}


def test_jsonl_items_land_with_outputs_references_subgroup_meta_and_gold(project):
    n = item_import(
        project=project,
        stream=jsonl(
            item("a", ("bart", "pegasus"), references=["r1", "r2"], subgroup="news", meta={"k": [1]}),
            item("b", ("bart",), reference="only ref", gold={"fluency": 5}),
        ),
    )
    assert n == 2
    a, b = Item.objects.filter(project=project).order_by("external_id")
    assert (a.references, a.subgroup, a.meta, a.gold) == (["r1", "r2"], "news", {"k": [1]}, None)
    assert list(a.outputs.values_list("position", "system")) == [(0, "bart"), (1, "pegasus")]
    assert b.references == ["only ref"]
    assert b.gold == {"fluency": {"bart": 5}} and b.n_target == 0


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"external_id": "x", "input": ', "bad JSON"),
        ('["a list"]', "one JSON object"),
        ({"input": "no id", "outputs": [{"system": "s", "text": "t"}]}, "external_id is missing"),
        ({"external_id": "x", "outputs": [{"system": "s", "text": "t"}]}, "input is missing"),
        ({"external_id": "x", "input": "i"}, "outputs is missing"),
        ({"external_id": "x", "input": "i", "outputs": []}, "needs at least 1 outputs, got 0"),
        (
            {"external_id": "x", "input": "i", "outputs": [{"system": "s", "text": ["t"]}]},
            "outputs[1].text must be a string",
        ),
        (
            {"external_id": "x", "input": "i", "outputs": [{"system": "s", "text": "a"}, {"system": "s", "text": "b"}]},
            "appears twice",
        ),
        ({**item("x"), "colour": "red"}, "unknown field 'colour'"),
        ({**item("x"), "gold": {"fluency": 9}}, "gold.fluency value 9 is off the scale 1–5"),
        ({**item("x"), "gold": {"fluency": 2.5}}, "whole number"),
        ({**item("x"), "gold": {"grammar": 3}}, "unknown criterion 'grammar'"),
        ({**item("x"), "gold": {"fluency": {"nosuch": 3}}}, "'nosuch' is not a system of this item"),
        ({**item("x"), "references": "not a list"}, "references must be a list"),
        ({**item("x"), "reference": "a", "references": ["b"]}, "either reference or references"),
        ({**item("x"), "meta": [1]}, "meta must be a JSON object"),
        ({**item("x"), "subgroup": 7}, "subgroup must be a string"),
    ],
)
def test_each_bad_line_kind_is_named_with_its_line_and_nothing_is_stored(project, line, message):
    errors = rejected(project, jsonl(item("ok1"), line, item("ok2")))
    assert list(errors) == [2]
    assert message in errors[2]


def test_every_bad_line_is_reported_not_just_the_first(project):
    errors = rejected(project, jsonl(item("a"), "{", item("b"), {"external_id": "c"}, item("a")))
    assert sorted(errors) == [2, 4, 5]
    assert "duplicate external_id 'a' (first on line 1)" in errors[5]


def test_an_external_id_already_in_the_project_is_a_duplicate(project):
    ItemFactory(project=project, external_id="old")
    errors = rejected_keeping_existing(project, jsonl(item("new"), item("old")))
    assert "already has this item" in errors[2]


def rejected_keeping_existing(project, stream):
    before = Item.objects.filter(project=project).count()
    with pytest.raises(ImportRejected) as caught:
        item_import(project=project, stream=stream)
    assert Item.objects.filter(project=project).count() == before
    return dict(caught.value.report.errors)


def test_invalid_utf8_is_reported_on_its_line(project):
    stream = io.BytesIO(
        b'{"external_id": "a", "input": "x", "outputs": [{"system": "s", "text": "t"}]}\n'
        b'{"external_id": "b", "input": "\xff\xfe", "outputs": []}\n'
    )
    assert "not valid UTF-8" in rejected(project, stream)[2]


def test_an_empty_file_is_refused(project):
    assert "no items" in rejected(project, io.BytesIO(b"\n\n"))[1]


def test_output_count_follows_the_task_type(db):
    pairwise = ProjectFactory(task_type="pairwise", criteria=["overall"])
    errors = rejected(pairwise, jsonl(item("a", ("x", "y", "z")), item("b", ("x",)), item("c", ("x", "y"))))
    assert errors == {
        1: "outputs: a pairwise item needs exactly 2 outputs, got 3",
        2: "outputs: a pairwise item needs exactly 2 outputs, got 1",
    }
    rankme = ProjectFactory(task_type="rankme", criteria=["quality"])
    assert "at least 2 outputs" in rejected(rankme, jsonl(item("a", ("x",))))[1]


def test_gold_per_task_type_is_checked_and_normalised(db):
    pairwise = ProjectFactory(task_type="pairwise", criteria=["overall"])
    item_import(project=pairwise, stream=jsonl(item("a", ("x", "y"), gold="y"), item("b", ("x", "y"), gold="tie")))
    assert sorted(Item.objects.filter(project=pairwise).values_list("gold", flat=True), key=str) == [
        {"overall": "tie"},
        {"overall": "y"},
    ]
    errors = rejected(
        ProjectFactory(task_type="pairwise", criteria=["overall"]), jsonl(item("a", ("x", "y"), gold="z"))
    )
    assert "'z' is not a system" in errors[1]
    rankme = ProjectFactory(task_type="rankme", criteria=["quality"])
    item_import(project=rankme, stream=jsonl(item("a", ("x", "y"), gold={"quality": {"x": [60, 100]}})))
    assert Item.objects.get(project=rankme).gold == {"quality": {"x": [60.0, 100.0]}}
    errors = rejected(
        ProjectFactory(task_type="rankme", criteria=["quality"]),
        jsonl(
            item("a", ("x", "y"), gold={"quality": {"x": [90, 10]}}),
            item("b", ("x", "y"), gold={"quality": {"x": [0, 120]}}),
        ),
    )
    assert "low 90 is above high 10" in errors[1] and "120 is off the scale 0–100" in errors[2]


def test_with_a_rankme_modulus_every_item_needs_a_reference_and_gold_is_unbounded():
    project = ProjectFactory(task_type="rankme", criteria=["quality"], rankme_modulus=100)
    errors = rejected(
        project,
        jsonl(
            item("a", ("x", "y"), reference="the reference"),
            item("b", ("x", "y")),
            item("c", ("x", "y"), references=["  "]),
            item("d", ("x", "y"), reference="r", gold={"quality": {"x": [0, 50]}}),
        ),
    )
    assert 1 not in errors
    assert (
        errors[2]
        == errors[3]
        == (
            "reference is missing: this project scores outputs against the item's "
            "reference (RankME modulus 100), so every item needs a non-empty reference"
        )
    )
    assert "gold.quality.x low must be a positive score" in errors[4]

    assert (
        item_import(
            project=project,
            stream=jsonl(item("a", ("x", "y"), references=["first", "second"], gold={"quality": {"x": [150, 1000]}})),
        )
        == 1
    )
    assert Item.objects.get(project=project).gold == {"quality": {"x": [150.0, 1000.0]}}


CSV = (
    "external_id,input,reference,subgroup,meta,gold,output_1,system_1,output_2,system_2\n"
    'c1,"A source, with a comma",the ref,news,"{""k"": 1}",,first text,bart,second text,pegasus\n'
    'c2,"multi\nline input",,sports,,"{""fluency"": 4}",only one,bart,,\n'
)


def test_csv_items_land_with_outputs_and_json_columns(project):
    assert item_import(project=project, stream=io.BytesIO(CSV.encode()), fmt="csv") == 2
    c1, c2 = Item.objects.filter(project=project).order_by("external_id")
    assert (c1.input, c1.references, c1.meta) == ("A source, with a comma", ["the ref"], {"k": 1})
    assert list(c1.outputs.values_list("system", "text")) == [("bart", "first text"), ("pegasus", "second text")]
    assert (c2.input, c2.gold, c2.outputs.count()) == ("multi\nline input", {"fluency": {"bart": 4}}, 1)


def test_csv_errors_name_the_line_where_the_row_starts(project):
    bad = CSV + 'c3,x,,,not json,,t,s,,\nc4,"two\nlines",,,,"{""fluency"": 7}",t,s,,\nc5,short\n'
    errors = rejected(project, io.BytesIO(bad.encode()), fmt="csv")
    # header 1, c1 2, c2 3-4 (a quoted newline), c3 5, c4 6-7, c5 8
    assert "column meta holds bad JSON" in errors[5]
    assert "off the scale" in errors[6]
    assert "2 cells but the header has 10 columns" in errors[8]


def test_csv_output_without_its_system_is_refused(project):
    errors = rejected(project, io.BytesIO(b"external_id,input,output_1\nx,y,z\n"), fmt="csv")
    assert "output_1 and system_1 go together" in errors[2]


def test_double_annotation_share_is_exact_and_spread_along_the_file(db):
    project = ProjectFactory(raters_per_item=3, double_annotation_share=0.25)
    item_import(project=project, stream=jsonl(*[item(f"i{k}") for k in range(40)]))
    targets = list(Item.objects.filter(project=project).order_by("id").values_list("n_target", flat=True))
    assert targets.count(3) == 10 and targets.count(1) == 30
    assert all(targets[k : k + 4].count(3) == 1 for k in range(0, 40, 4))


def test_progress_is_reported(project):
    calls = []
    item_import(
        project=project,
        stream=jsonl(*[item(f"i{k}") for k in range(5)]),
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls[-1] == (5, 5)


def test_bare_json_scalars_as_output_text_keep_their_json_text(project):
    item_import(
        project=project,
        stream=jsonl(
            {
                "external_id": "x",
                "input": "i",
                "outputs": [{"system": "a", "text": True}, {"system": "b", "text": None}, {"system": "c", "text": 4.5}],
            }
        ),
    )
    texts = Item.objects.get(project=project).outputs.values_list("text", flat=True)
    assert list(texts) == ["true", "", "4.5"]
