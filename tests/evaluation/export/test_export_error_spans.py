"""An error-span study's export: the spans table in every format (code points, the judgments' key), the typology,
severities and weights in the data card and the HEDS sheet, and the re-import restoring every span."""

import csv
import io
import json

import pyarrow.parquet as pq
import pytest

from annotation.models import ErrorSpan, Judgment
from annotation.services import item_import, judgment_import, project_create
from evaluation.selectors.export import rater_pseudonyms
from evaluation.services import ExportOptions, export_reimport, export_write
from tests.evaluation.export.studies import jsonl, read_zip

pytestmark = pytest.mark.django_db

OUTPUT = "Ein 😀 Hund bellt."
TYPOLOGY = [
    {"name": "Accuracy", "children": ["Mistranslation", "Omission"]},
    {"name": "Fluency", "children": ["Punctuation"]},
    {"name": "Source error", "source": True},
]
WEIGHTS = [
    {"severity": "minor", "category": "Fluency/Punctuation", "weight": 0.1},
    {"severity": "minor", "weight": 1},
    {"severity": "major", "weight": 5},
    {"severity": "critical", "weight": 10},
]


def mqm_study(lead):
    project = project_create(
        created_by=lead,
        name="spans",
        task_type="mqm",
        criteria=[{"name": "MQM"}],
        task_config={"typology": TYPOLOGY, "weights": WEIGHTS},
    )
    items = [
        {"external_id": f"s{k}", "input": "A 😀 dog barks.", "outputs": [{"system": s, "text": OUTPUT} for s in "AB"]}
        for k in range(3)
    ]
    item_import(project=project, stream=io.BytesIO("".join(json.dumps(x) + "\n" for x in items).encode()))
    lines = []
    for k in range(3):
        for rater in ("w1", "w2"):
            spans = [
                {"start": 4, "end": 10, "severity": "major", "category": "Accuracy/Mistranslation"},
                {"start": 16, "end": 17, "severity": "minor", "category": "Fluency/Punctuation"},
                {"start": 2, "end": 5, "severity": "minor", "category": "Accuracy/Omission", "side": "source"},
            ][: k + (rater == "w2")]
            for system in "AB":
                value = {"spans": spans if system == "A" else [], "no_error": system == "B" or not spans}
                lines.append({"item": f"s{k}", "rater": rater, "criterion": "MQM", "system": system, "value": value})
    judgment_import(project=project, stream=io.BytesIO("".join(json.dumps(x) + "\n" for x in lines).encode()))
    return project


def span_table(project, names) -> list[tuple]:
    rows = ErrorSpan.objects.filter(judgment__project=project, judgment__is_current=True).values_list(
        "judgment__item__external_id",
        "judgment__output__system",
        "judgment__criterion__name",
        "judgment__rater_id",
        "side",
        "start",
        "end",
        "severity",
        "category",
        "origin",
    )
    return sorted((i, s, c, names[r], *rest) for i, s, c, r, *rest in rows)


def test_the_spans_table_in_every_format_and_the_card_names_the_settings(lead, tmp_path):
    project = mqm_study(lead)
    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(formats=("jsonl", "csv", "parquet")), destination=path)
    files = read_zip(path)
    expected = span_table(project, rater_pseudonyms(project, max_judgment_id=10**9))
    assert len(expected) == 9
    columns = ["item", "system", "criterion", "rater", "side", "start", "end", "severity", "category", "origin"]
    as_jsonl = [tuple(r[c] for c in columns) for r in jsonl(files["data/spans.jsonl"])]
    reader = csv.DictReader(io.StringIO(files["data/spans.csv"].decode()))
    as_csv = [tuple(int(r[c]) if c in ("start", "end") else r[c] for c in columns) for r in reader]
    table = pq.read_table(io.BytesIO(files["data/spans.parquet"])).to_pylist()
    as_parquet = [tuple(r[c] for c in columns) for r in table]
    assert sorted(as_jsonl) == sorted(as_csv) == sorted(as_parquet) == expected
    assert ("s1", "A", "MQM", "rater-002", "target", 4, 10, "major", "Accuracy/Mistranslation", "added") in expected

    readme = files["README.md"].decode()
    assert "### `spans`" in readme and "Unicode code points" in readme
    assert "### Settings" in readme
    assert "Accuracy (Mistranslation, Omission)" in readme and "minor Fluency/Punctuation 0.1" in readme
    assert "critical 10" in readme
    heds = json.loads(files["heds.json"])
    assert heds["platform_facts"]["task_config"]["weights"][3] == {"severity": "critical", "weight": 10.0}
    (criteria,) = [section["criteria"] for section in heds["sections"] if "criteria" in section]
    # the list of possible values names the typology
    values = next(q["answer"] for q in criteria[0]["questions"] if q["id"] == "4.3.4")
    assert "Source error (marked in the source)" in values
    card = json.loads(files["card.json"])
    assert [t for t in card["tables"]] == ["items", "judgments", "scores", "spans", "raters"]


def test_the_reimport_restores_every_span_and_value(lead, tmp_path):
    original = mqm_study(lead)
    path = tmp_path / "export.zip"
    export_write(project=original, options=ExportOptions(formats=("jsonl",)), destination=path)

    copy, counts = export_reimport(archive_path=path, created_by=lead, name="spans again")

    assert counts == {"items": 3, "judgments": 12}
    assert copy.task_config == original.task_config
    names = rater_pseudonyms(original, max_judgment_id=10**9)
    imported = {m.user_id: m.external_name for m in copy.memberships.exclude(external_name="")}
    assert span_table(copy, imported) == span_table(original, names)
    values = sorted(Judgment.objects.filter(project=copy).values_list("item__external_id", "value"))
    assert values == sorted(Judgment.objects.filter(project=original).values_list("item__external_id", "value"))
