"""Finished error-span studies through the public judgment import: JSON lines whose value is the span answer and
WMT's TSV layouts (body, .tsv upload, manage.py), spans stored beside their judgments in code points, raters
pseudonymous, and bad files refused whole with every bad line named."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.models import ErrorSpan, Judgment, Membership, ProposedSpan
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

OUTPUT = "Der 😀 Hund bellt laut."  # an astral character: offsets are code points, not UTF-16 units or bytes
SOURCE = "The 😀 dog barks loudly."
MARKED = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"


def _mark(text: str, start: int, end: int) -> str:
    return f"{text[:start]}<v>{text[start:end]}</v>{text[end:]}"


@pytest.fixture
def mqm(staff):
    client = client_for(staff)
    made = client.post(
        "/api/v1/projects/", {"name": "mqm study", "task_type": "mqm", "criteria": [{"name": "MQM"}]}, format="json"
    )
    assert made.status_code == 201, made.content
    pk = made.json()["id"]
    lines = [
        {"external_id": seg, "input": SOURCE, "outputs": [{"system": s, "text": OUTPUT} for s in ("A", "B")]}
        for seg in ("1", "2")
    ]
    body = "".join(json.dumps(x) + "\n" for x in lines).encode()
    assert (
        client.post(f"/api/v1/projects/{pk}/items/import/", body, content_type="application/x-ndjson").status_code
        == 201
    )
    return client, pk


def _post(client, pk, body: bytes, content_type: str, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return client.post(f"/api/v1/projects/{pk}/judgments/import/?{query}", body, content_type=content_type)


def _spans(pk):
    return list(
        ErrorSpan.objects.filter(judgment__project_id=pk)
        .order_by("judgment__output__system", "judgment__rater__username", "side", "start")
        .values_list("judgment__output__system", "side", "start", "end", "severity", "category", "origin")
    )


def test_the_marked_tsv_stores_one_judgment_per_rating_with_its_spans(mqm):
    client, pk = mqm
    tsv = (
        MARKED
        + f"A\td\t1\t1\tw7\t{SOURCE}\t{_mark(OUTPUT, 4, 10)}\tAccuracy/Mistranslation\tMajor\n"
        + f"A\td\t1\t1\tw7\t{_mark(SOURCE, 6, 9)}\t{OUTPUT}\tAccuracy/Omission\tMinor\n"
        + f"B\td\t1\t1\tw7\t{SOURCE}\t{OUTPUT}\tNo-error\tNo-error\n"
        + f"A\td\t1\t2\tw8\t{SOURCE}\t{_mark(OUTPUT, 11, 12)}\tFluency/Punctuation\tMinor\n"
    )
    r = _post(client, pk, tsv.encode(), "text/tab-separated-values")
    assert r.status_code == 201, r.json()
    assert r.json() == {"imported": 3}
    # "😀 Hund" is code points [4, 10) (UTF-16 units [4, 11)); the TSV's marks gave them in code points
    assert OUTPUT[4:10] == "😀 Hund" and SOURCE[6:9] == "dog"
    assert _spans(pk) == [
        ("A", "source", 6, 9, "minor", "Accuracy/Omission", "added"),
        ("A", "target", 4, 10, "major", "Accuracy/Mistranslation", "added"),
        ("A", "target", 11, 12, "minor", "Fluency/Punctuation", "added"),
    ]
    # MQM penalties under the default WMT weights: B no error, A major + minor, A minor punctuation
    assert sorted(Judgment.objects.filter(project_id=pk).values_list("value", flat=True)) == [0.0, 0.1, 6.0]
    imported = Membership.objects.filter(project_id=pk).exclude(external_name="")
    assert sorted(imported.values_list("external_name", flat=True)) == ["w7", "w8"]
    assert not any(m.user.is_active or m.user.has_usable_password() for m in imported)


def test_offsets_tsv_as_an_upload_and_span_lines_as_json(mqm):
    client, pk = mqm
    tsv = (
        "system\tseg_id\trater\tcategory\tseverity\tspan_side\tspan_start\tspan_end\n"
        "A\t2\tw1\tStyle/Awkward\tMinor\ttarget\t0\t3\n"
    )
    upload = io.BytesIO(tsv.encode())
    upload.name = "study.tsv"
    r = client.post(f"/api/v1/projects/{pk}/judgments/import/", {"file": upload}, format="multipart")
    assert r.status_code == 201, r.json()
    line = {
        "item": "2",
        "rater": "w1",
        "criterion": "MQM",
        "system": "B",
        "value": {"spans": [{"start": 0, "end": 0, "severity": "major", "category": "Accuracy/Omission"}]},
    }
    r = _post(client, pk, (json.dumps(line) + "\n").encode(), "application/x-ndjson")
    assert r.status_code == 201, r.json()
    assert _spans(pk) == [
        ("A", "target", 0, 3, "minor", "Style/Awkward", "added"),
        ("B", "target", 0, 0, "major", "Accuracy/Omission", "added"),
    ]


def test_bad_rows_are_named_by_line_and_nothing_is_stored(mqm):
    client, pk = mqm
    tsv = (
        MARKED
        + f"A\td\t1\t1\tw7\t{SOURCE}\t{_mark(OUTPUT, 4, 10)}\tAccuracy/Mistranslation\tMajor\n"
        + f"A\td\t1\t1\tw7\t{SOURCE}\t{_mark(OUTPUT, 0, 3)}\tMade up\tMajor\n"
        + f"A\td\t1\t9\tw7\t{SOURCE}\t{OUTPUT}\tNo-error\tNo-error\n"
        + f"B\td\t1\t1\tw7\t{SOURCE}\t{_mark(OUTPUT, 0, 3)}\tAccuracy/Addition\tBlocker\n"
    )
    r = _post(client, pk, tsv.encode(), "text/tab-separated-values")
    assert r.status_code == 400
    errors = {e["line"]: e["error"] for e in r.json()["errors"]}
    assert errors == {
        3: "category: 'Made up' is not a category of the project's typology",
        4: "item '9' is not in this project",
        5: "severity: unknown severity 'blocker'; severities are minor, major, critical",
    }
    assert not Judgment.objects.filter(project_id=pk).exists() and not ErrorSpan.objects.exists()
    unreadable = _post(
        client, pk, (MARKED + "A\td\t1\t1\tw7\tx\t<v>y\tOther\tMajor\n").encode(), "text/tab-separated-values"
    )
    assert unreadable.status_code == 400
    assert unreadable.json()["errors"] == [
        {"line": 2, "error": "field 'target': expected one <v>…</v> mark, found 1 and 0"}
    ]
    assert _post(client, pk, MARKED.encode(), "text/tab-separated-values", layout="xml").json() == {
        "layout": "layout must be one of marked, offsets"
    }


def test_a_tsv_is_refused_for_a_project_without_spans(lead_client, project):
    r = _post(lead_client, project.pk, MARKED.encode(), "text/tab-separated-values")
    assert r.status_code == 400
    assert r.json()["errors"][0]["line"] == 1
    assert "a TSV of errors is for error-span projects" in r.json()["errors"][0]["error"]


def test_a_tsv_is_refused_up_front_for_esa_whose_answers_need_a_score(staff):
    client = client_for(staff)
    pk = client.post(
        "/api/v1/projects/", {"name": "esa tsv", "task_type": "esa", "criteria": [{"name": "Q"}]}, format="json"
    ).json()["id"]
    tsv = MARKED + f"A\td\t1\t1\tw1\t{SOURCE}\t{_mark(OUTPUT, 0, 3)}\t\tMajor\n"
    r = _post(client, pk, tsv.encode(), "text/tab-separated-values")
    assert r.status_code == 400
    assert r.json()["errors"][0]["line"] == 1
    assert (
        "a TSV of errors holds no score, which ESA (error spans and a 0–100 score) answers need: import the "
        "study as JSON lines" in r.json()["errors"][0]["error"]
    ), r.json()
    assert not Judgment.objects.exists()


def test_the_command_imports_a_tsv_and_reports_bad_lines(mqm, tmp_path):
    _, pk = mqm
    good = tmp_path / "study.tsv"
    good.write_text(MARKED + f"B\td\t1\t2\tw3\t{SOURCE}\t{_mark(OUTPUT, 0, 3)}\tOther\tMinor\n", encoding="utf-8")
    out = io.StringIO()
    call_command("import_judgments", str(pk), str(good), "--no-progress", "--layout", "marked", stdout=out)
    assert "Imported 1 judgments" in out.getvalue()
    bad = tmp_path / "bad.tsv"
    bad.write_text(MARKED + f"B\td\t1\t2\tw4\t{SOURCE}\t{_mark(OUTPUT, 0, 3)}\tOther\tHuge\n", encoding="utf-8")
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 bad line"):
        call_command("import_judgments", str(pk), str(bad), "--no-progress", stderr=err)
    assert f"{bad}:2: severity: unknown severity 'huge'" in err.getvalue()


def test_accepted_and_rejected_proposals_are_imported_with_their_origin(staff):
    client = client_for(staff)
    pk = client.post(
        "/api/v1/projects/", {"name": "esa-ai", "task_type": "esa", "criteria": [{"name": "Q"}]}, format="json"
    ).json()["id"]
    proposed = [{"start": 0, "end": 3, "severity": "major"}, {"start": 4, "end": 5, "severity": "minor"}]
    item = {
        "external_id": "s",
        "input": SOURCE,
        "outputs": [{"system": "mt", "text": OUTPUT, "proposed_spans": proposed}],
    }
    client.post(f"/api/v1/projects/{pk}/items/import/", json.dumps(item).encode(), content_type="application/x-ndjson")
    value = {
        "spans": [
            {"start": 0, "end": 3, "severity": "major", "origin": "accepted", "proposal": 0},
            {"start": 4, "end": 5, "severity": "minor", "origin": "rejected", "proposal": 1},
        ],
        "score": 61,
    }
    line = {"item": "s", "rater": "r", "criterion": "Q", "system": "mt", "value": value}
    r = _post(client, pk, json.dumps(line).encode(), "application/x-ndjson")
    assert r.status_code == 201, r.json()
    assert Judgment.objects.get(project_id=pk).value == 61
    stored = ErrorSpan.objects.filter(judgment__project_id=pk).order_by("start")
    ids = list(ProposedSpan.objects.order_by("start").values_list("id", flat=True))
    assert [(s.origin, s.proposal_id) for s in stored] == [("accepted", ids[0]), ("rejected", ids[1])]
