"""A project rating each assistant turn exports the turn of every judgment (a `turn` column in every format), says
so on its data card, and re-imports turn by turn."""

import csv
import io
import json

import pytest

from annotation.models import Judgment
from annotation.services import item_import, judgment_import, project_create
from annotation.services.judgment_import import JUDGMENT_FIELDS
from core.import_records import ImportRejected
from evaluation.services import ExportOptions, export_reimport, export_write
from tests.annotation.factories import UserFactory
from tests.annotation.services.test_quality_per_turn import per_turn_project
from tests.evaluation.export.studies import jsonl, read_zip

pytestmark = pytest.mark.django_db

CONVERSATION = [
    {"role": "assistant", "text": "Yes, at 7:10."},
    {"role": "user", "text": "How much is it?"},
    {"role": "assistant", "text": "Twelve euros."},
]


def _study():
    project = per_turn_project()
    item_import(
        project=project,
        stream=jsonl_bytes(
            {
                "external_id": f"c{k}",
                "input": "Is there an earlier train?",
                "outputs": [{"system": "a", "turns": CONVERSATION}, {"system": "b", "turns": CONVERSATION[:1]}],
            }
            for k in range(3)
        ),
    )
    lines = [
        {
            "item": f"c{k}",
            "rater": rater,
            "criterion": "helpful",
            "system": system,
            "turn": turn,
            "value": 1 + (k + turn + len(rater)) % 5,
            "submitted_at": "2026-03-02T10:00:00Z",
        }
        for k in range(3)
        for rater in ("w1", "w22")
        for system, turns in (("a", (0, 2)), ("b", (0,)))
        for turn in turns
    ]
    assert judgment_import(project=project, stream=jsonl_bytes(lines)) == len(lines) == 18
    return project


def jsonl_bytes(records) -> io.BytesIO:
    return io.BytesIO("".join(json.dumps(r) + "\n" for r in records).encode())


def test_every_format_has_the_turn_and_the_card_says_the_unit(tmp_path):
    project = _study()
    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(formats=("jsonl", "csv")), destination=path)
    files = read_zip(path)
    rows = jsonl(files["data/judgments.jsonl"])
    assert set(list(rows[0])[: len(JUDGMENT_FIELDS)]) == set(JUDGMENT_FIELDS)
    assert sorted((r["item"], r["rater"], r["system"], r["turn"]) for r in rows)[:3] == [
        ("c0", "rater-001", "a", 0),
        ("c0", "rater-001", "a", 2),
        ("c0", "rater-001", "b", 0),
    ]
    table = list(csv.DictReader(io.StringIO(files["data/judgments.csv"].decode())))
    assert sorted(r["turn"] for r in table) == sorted(str(r["turn"]) for r in rows)
    card = files["README.md"].decode()
    assert "Unit of rating: every assistant turn of each output (a conversation) was rated on its own" in card
    assert "| `turn` |" in card


def test_the_export_reimports_turn_by_turn(lead, tmp_path):
    project = _study()
    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(formats=("jsonl",)), destination=path)
    copy, counts = export_reimport(archive_path=path, created_by=lead, name="copy")
    assert copy.rating_unit == "turn" and counts["judgments"] == 18

    def table(p):
        return sorted(
            Judgment.objects.filter(project=p).values_list("item__external_id", "output__system", "turn", "value")
        )

    assert table(copy) == table(project)


def test_a_judgment_line_naming_a_turn_that_is_not_an_assistant_turn_is_refused():
    project = _study()
    bad = [
        {"item": "c0", "rater": "w3", "criterion": "helpful", "system": "a", "turn": 1, "value": 3},
        {"item": "c0", "rater": "w3", "criterion": "helpful", "system": "b", "value": 3},
    ]
    with pytest.raises(ImportRejected) as refused:
        judgment_import(project=project, stream=jsonl_bytes(bad))
    message = str(refused.value.report.errors)
    assert "turn 1 is not an assistant turn of the output judged; its assistant turns are 0, 2" in message
    assert "turn is missing" in message
    whole = project_create(
        created_by=UserFactory(username="lead-whole-export"),
        name="whole",
        task_type="likert",
        criteria=[{"name": "helpful", "scale_min": 1, "scale_max": 5}],
    )
    item_import(
        project=whole,
        stream=jsonl_bytes([{"external_id": "w", "input": "x", "outputs": [{"system": "a", "text": "y"}]}]),
    )
    with pytest.raises(ImportRejected) as refused:
        judgment_import(
            project=whole,
            stream=jsonl_bytes([{"item": "w", "rater": "r", "criterion": "helpful", "turn": 0, "value": 3}]),
        )
    assert "this project rates whole outputs; leave turn out" in str(refused.value.report.errors)
