"""CSV exports neutralise text a spreadsheet would run as a formula (OWASP: a leading ' before = + - @ tab
CR), leave numbers and JSON alone, keep JSONL and Parquet raw, and write raw text on request."""

import csv
import io

import pyarrow.parquet as pq
import pytest
from django.core.management import call_command

from annotation.services import item_import, judgment_import, project_create
from evaluation.export.writers import Column, TableSpec, TableWriter
from evaluation.models import Export
from tests.evaluation.export.studies import jsonl, lines, read_zip

HOSTILE = ['=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1)", "\tTAB", "\rCR", "safe", "a=b", ""]
SPEC = TableSpec(
    "t",
    (
        Column("text", "string"),
        Column("score", "float"),
        Column("count", "int"),
        Column("value", "label"),
        Column("meta", "json"),
        Column("order", "string_list"),
        Column("outputs", "outputs"),
    ),
    csv_outputs=1,
)


def write(tmp_path, rows, **options):
    tmp_path.mkdir(exist_ok=True)
    writer = TableWriter(SPEC, tmp_path, ("csv", "jsonl", "parquet"), False, **options)
    writer.write("train", rows)
    files = {f.format: f.path for f in writer.close()}
    with open(files["csv"], newline="", encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    return table, jsonl(files["jsonl"].read_bytes()), pq.read_table(files["parquet"]).to_pylist()


def rows_of(texts):
    return [(t, -2.5, -3, -1.0, {"k": t}, [t], [{"system": t, "text": t}]) for t in texts]


def test_text_cells_that_would_run_as_formulas_get_a_leading_quote(tmp_path):
    table, from_jsonl, from_parquet = write(tmp_path, rows_of(HOSTILE), label_type="float")

    assert [r["text"] for r in table] == ["'" + t for t in HOSTILE[:6]] + ["safe", "a=b", ""]
    assert [r["system_1"] for r in table] == [r["text"] for r in table]
    assert [r["output_1"] for r in table] == [r["text"] for r in table]
    # negative numbers are data, in number columns and in a numeric label alike
    assert {(r["score"], r["count"], r["value"]) for r in table} == {("-2.5", "-3", "-1.0")}
    # JSON cells start with { [ or " and are left as they are
    assert table[0]["meta"] == '{"k":"=HYPERLINK(\\"http://x\\",\\"y\\")"}'
    assert table[2]["order"] == '["-2+3"]'
    # JSONL and Parquet keep every text as written
    assert [r["text"] for r in from_jsonl] == [r["text"] for r in from_parquet] == HOSTILE
    assert [r["outputs"][0]["text"] for r in from_jsonl] == HOSTILE


def test_a_text_label_is_neutralised_and_raw_text_is_kept_on_request(tmp_path):
    (label,), _, _ = write(tmp_path / "a", [("x", None, None, "=1+1", None, [], [])])
    assert label["value"] == "'=1+1" and label["system_1"] == "" and label["score"] == ""

    raw, _, _ = write(tmp_path / "b", rows_of(HOSTILE), label_type="float", csv_raw_text=True)
    assert [r["text"] for r in raw] == [r["output_1"] for r in raw] == HOSTILE


@pytest.fixture
def hostile_study(lead, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    project = project_create(
        created_by=lead, name="Formulas", task_type="likert", criteria=[{"name": "=quality", "scale_min": -2,
                                                                         "scale_max": 2}],
    )  # fmt: skip
    item_import(project=project, stream=lines([
        {"external_id": f"-{i}", "input": "=cmd|' /C calc'!A0", "subgroup": "@group",
         "outputs": [{"system": "+sys", "text": "-output"}]} for i in range(3)
    ]))  # fmt: skip
    judgment_import(project=project, stream=lines([
        {"item": f"-{i}", "system": "+sys", "criterion": "=quality", "rater": "@rater", "value": -2,
         "submitted_at": "2024-03-04T09:00:00Z"} for i in range(3)
    ]))  # fmt: skip
    return project


def export_files(client, project, capture, **body) -> dict[str, bytes]:
    with capture(execute=True):
        response = client.post(f"/api/v1/projects/{project.id}/exports/", {"formats": ["csv", "jsonl"], **body},
                               format="json")  # fmt: skip
    assert response.status_code == 202, response.json()
    export = Export.objects.get(pk=response.json()["export_id"])
    download = client.get(f"/api/v1/exports/{export.id}/download/")
    return read_zip(io.BytesIO(b"".join(download.streaming_content)))


def csv_rows(data: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(data.decode())))


@pytest.mark.django_db
def test_the_api_export_neutralises_csv_by_default_and_says_so_in_the_card(
    hostile_study, lead_client, django_capture_on_commit_callbacks
):
    files = export_files(lead_client, hostile_study, django_capture_on_commit_callbacks)

    item = csv_rows(files["data/items.csv"])[0]
    assert (item["external_id"], item["input"], item["subgroup"], item["system_1"], item["output_1"]) == (
        "'-0",
        "'=cmd|' /C calc'!A0",
        "'@group",
        "'+sys",
        "'-output",
    )
    judgment = csv_rows(files["data/judgments.csv"])[0]
    assert (judgment["item"], judgment["criterion"], judgment["rater"], judgment["value"]) == (
        "'-0",
        "'=quality",
        "rater-001",
        "-2",
    )  # the value is a number: -2 stays -2
    assert jsonl(files["data/items.jsonl"])[0]["input"] == "=cmd|' /C calc'!A0"
    card = files["README.md"].decode()
    assert "In the CSV files, text that starts with `=`, `+`, `-`, `@`, a tab or a carriage return has a `'`" in card


@pytest.mark.django_db
def test_the_api_export_keeps_raw_csv_text_when_asked(hostile_study, lead_client, django_capture_on_commit_callbacks):
    files = export_files(lead_client, hostile_study, django_capture_on_commit_callbacks, csv_raw_text=True)

    assert csv_rows(files["data/items.csv"])[0]["input"] == "=cmd|' /C calc'!A0"
    assert "The CSV files hold text exactly as written (export option `csv_raw_text`)" in files["README.md"].decode()
    bad = lead_client.post(f"/api/v1/projects/{hostile_study.id}/exports/", {"csv_raw_text": "maybe"}, format="json")
    assert bad.status_code == 400 and "csv_raw_text" in bad.json()


@pytest.mark.django_db
def test_the_export_page_offers_raw_csv_text_unticked(client, hostile_study, lead, django_capture_on_commit_callbacks):
    client.force_login(lead)
    page = client.get(f"/projects/{hostile_study.id}/export/").content.decode()
    assert '<input type="checkbox" name="csv_raw_text" aria-describedby="csv-raw-help" >' in page

    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/projects/{hostile_study.id}/export/", {"formats": ["csv"], "split": "all"})
        client.post(f"/projects/{hostile_study.id}/export/", {"formats": ["csv"], "split": "all", "csv_raw_text": "on"})
    assert [e.options["csv_raw_text"] for e in Export.objects.order_by("id")] == [False, True]


@pytest.mark.django_db
def test_the_export_command_neutralises_unless_told_to_keep_raw_text(hostile_study, tmp_path):
    inputs = []
    for flags in ([], ["--csv-raw-text"]):
        path = tmp_path / f"export{len(flags)}.zip"
        call_command("export_project", str(hostile_study.id), "--output", str(path), "--format", "csv",
                     "--no-progress", *flags, stdout=io.StringIO())  # fmt: skip
        inputs.append(csv_rows(read_zip(path)["data/items.csv"])[0]["input"])
    assert inputs == ["'=cmd|' /C calc'!A0", "=cmd|' /C calc'!A0"]
