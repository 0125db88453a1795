"""Hostile import files (hypothesis): malformed JSON, huge lines, wrong encodings, deep nesting, BOMs,
NUL bytes, ragged CSV. Each is either imported whole or refused whole with an ImportRejected naming
line numbers; never another exception, never a half-written import. Plus the upload size limit."""

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from agreement.models import AgreementSnapshot
from annotation.models import Item, Judgment, Output
from annotation.services import item_import, judgment_import
from core.import_records import ImportRejected
from evaluation.models import Judge, JudgeRating, MetricScore
from evaluation.services import judge_rating_import, metric_score_import
from tests.security.world import build_world

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

VALID_ITEM = {"external_id": "x", "input": "in", "outputs": [{"system": "s1", "text": "t"}]}
# The values the attack of issue 15 found answering 500: NUL, lone surrogates, NaN/Infinity, huge numbers,
# naive times, numbers of more digits than Python reads.
hostile_scalars = st.sampled_from(
    [
        "a\x00b",
        "\x00",
        "\ud800",
        "x\udfffy",
        float("nan"),
        float("inf"),
        -float("inf"),
        1e20,
        10**20,
        -(10**30),
        2**63,
        "2024-01-01T00:00:00",
        "2024-02-30T00:00:00",
        "NaN",
        "Infinity",
        "",
        " ",
        "x" * 5000,
    ]
)
texts = st.text(max_size=20) | st.text(alphabet=st.characters(categories=["Cs", "Cc"]), max_size=4)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | texts | hostile_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
hostile_lines = st.one_of(
    st.binary(max_size=200),  # arbitrary bytes
    st.just(b"\xef\xbb\xbf" + json.dumps(VALID_ITEM).encode()),  # BOM (fine on line 1 only)
    st.just(json.dumps(VALID_ITEM).encode().replace(b'"in"', b'"i\x00n"')),  # raw NUL in a string
    st.just(json.dumps({**VALID_ITEM, "input": "a\u0000b"}).encode()),  # escaped NUL
    st.just("é".encode("latin-1") + b'{"external_id": "x"}'),  # wrong encoding
    st.just(json.dumps(VALID_ITEM).encode("utf-16")),  # wrong encoding, whole line
    st.just(b"[" * 50_000 + b"]" * 50_000),  # deeply nested JSON
    st.just(b'{"a":' * 20_000 + b"1" + b"}" * 20_000),
    st.just(b'{"external_id": "' + b"x" * 300_000 + b'"}'),  # a huge line
    st.just(b'{"external_id": "big", "input": "' + b"y" * 2_000_000 + b'", "outputs": []}'),
    st.just(b'{"external_id": 1e400, "input": NaN, "outputs": Infinity}'),
    st.just(json.dumps({**VALID_ITEM, "meta": {"score": "NaN"}}).replace('"NaN"', "NaN").encode()),
    st.just(json.dumps({**VALID_ITEM, "meta": {"n": 1}}).replace("1}", "9" * 5000 + "}").encode()),
    st.just(b"{unterminated"),
    st.just(b"\x00\x00\x00"),
    st.just(b"\r"),
    st.just(b"\\u0000"),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries(
        {
            "external_id": json_values,
            "input": json_values,
            "outputs": json_values,
            "gold": json_values,
            "references": json_values,
            "subgroup": json_values,
            "meta": json_values,
        }
    ).map(lambda v: json.dumps(v).encode()),
)
files = st.lists(hostile_lines, min_size=1, max_size=6).map(lambda lines: b"\n".join(lines))


def near_valid(fields: dict):
    """Lines that are valid but for some fields, each kept, dropped or replaced by a hostile value: they get
    past the line's shape to the checks of each field (and to the database, if a check is missing)."""

    def field(valid):
        return st.one_of(st.just(valid), hostile_scalars, json_values)

    return st.lists(
        st.fixed_dictionaries({}, optional={name: field(valid) for name, valid in fields.items()}),
        min_size=1,
        max_size=4,
    ).map(lambda records: "".join(json.dumps(r) + "\n" for r in records).encode())


item_lines = near_valid(
    {
        "external_id": "n1",
        "input": "in",
        "references": ["ref"],
        "subgroup": "news",
        "meta": {"lang": "en"},
        "outputs": [{"system": "s1", "text": "t"}],
        "gold": None,
    }
)
outputs = st.lists(
    st.fixed_dictionaries({"system": st.just("s1") | hostile_scalars, "text": st.just("t") | hostile_scalars}),
    min_size=1,
    max_size=2,
)
meta = st.dictionaries(texts | hostile_scalars.filter(lambda v: isinstance(v, str)), json_values, max_size=3)
output_lines = st.lists(
    st.fixed_dictionaries({"external_id": st.just("o1"), "input": st.just("in"), "outputs": outputs, "meta": meta}),
    min_size=1,
    max_size=3,
).map(lambda records: "".join(json.dumps(r) + "\n" for r in records).encode())
judgment_lines = near_valid(
    {
        "item": "doc0",
        "rater": "w1",
        "criterion": "fluency",
        "system": "SECRETSYS",
        "value": 4,
        "submitted_at": "2024-03-01T10:00:00Z",
        "shown_order": ["SECRETSYS"],
        "duration_ms": 1200,
    }
)
metric_lines = near_valid({"item": "doc0", "system": "SECRETSYS", "metric": "bleu", "score": 0.4}) | near_valid(
    {"item": "doc0", "system": "SECRETSYS", "scores": {"bleu": 0.4, "comet": 0.8}}
)
judge_lines = near_valid(
    {"judge": "gpt", "kind": "llm", "item": "doc0", "criterion": "fluency", "system": "SECRETSYS", "value": 4}
)


def _refused_cleanly(run, counts) -> None:
    before = counts()
    try:
        run()
    except ImportRejected as exc:
        report = exc.report.as_dict()
        assert report["n_errors"] >= 1 and report["errors"], report
        assert all(isinstance(e["line"], int) and e["line"] >= 1 and e["error"] for e in report["errors"]), report
        assert counts() == before, "a refused import wrote rows"


@pytest.mark.django_db
@FUZZ
@given(data=files, fmt=st.sampled_from(["jsonl", "csv"]))
def test_item_import_survives_hostile_files(data, fmt):
    project = build_world_once().project

    def counts():
        return Item.objects.filter(project=project).count(), Output.objects.filter(item__project=project).count()

    _refused_cleanly(lambda: item_import(project=project, stream=io.BytesIO(data), fmt=fmt), counts)


csv_cells = st.text(alphabet=st.characters(codec="utf-8"), max_size=30) | st.sampled_from(
    ['"', '""', '"a""b', "\x00", "\r\n", "\n", ",", "x" * 200_000]
)
csv_files = st.lists(st.lists(csv_cells, min_size=0, max_size=6), min_size=1, max_size=5).map(
    lambda rows: "\n".join(",".join(row) for row in [["external_id", "input", "output_1", "system_1"], *rows]).encode(
        "utf-8", "surrogatepass"
    )
)


@pytest.mark.django_db
@FUZZ
@given(data=csv_files)
def test_item_import_survives_hostile_csv(data):
    project = build_world_once().project

    def counts():
        return Item.objects.filter(project=project).count()

    _refused_cleanly(lambda: item_import(project=project, stream=io.BytesIO(data), fmt="csv"), counts)


@pytest.mark.django_db
@FUZZ
@given(data=item_lines | output_lines)
def test_item_import_survives_hostile_values_in_each_field(data):
    project = build_world_once().project

    def counts():
        return Item.objects.filter(project=project).count(), Output.objects.filter(item__project=project).count()

    _refused_cleanly(lambda: item_import(project=project, stream=io.BytesIO(data), fmt="jsonl"), counts)


@pytest.mark.django_db
@FUZZ
@given(data=files | judgment_lines)
def test_judgment_import_survives_hostile_files(data):
    project = build_world_once().project

    def counts():
        return Judgment.objects.filter(project=project).count(), AgreementSnapshot.objects.count()

    _refused_cleanly(lambda: judgment_import(project=project, stream=io.BytesIO(data)), counts)


@pytest.mark.django_db
@FUZZ
@given(data=files | metric_lines, fmt=st.sampled_from(["jsonl", "csv"]))
def test_metric_import_survives_hostile_files(data, fmt):
    project = build_world_once().project

    def counts():
        return MetricScore.objects.filter(output__item__project=project).count()

    _refused_cleanly(lambda: metric_score_import(project=project, stream=io.BytesIO(data), fmt=fmt), counts)


@pytest.mark.django_db
@FUZZ
@given(data=files | judge_lines)
def test_judge_import_survives_hostile_files(data):
    project = build_world_once().project

    def counts():
        return JudgeRating.objects.count(), Judge.objects.count()

    _refused_cleanly(lambda: judge_rating_import(project=project, stream=io.BytesIO(data)), counts)


_WORLD = {}


def build_world_once():
    """One world per test function: hypothesis runs every example inside the test's one transaction,
    so the world built by the first example is there for the others (and rolled back after)."""
    world = _WORLD.get("world")
    if world is None or not Item.objects.filter(project_id=world.project.pk).exists():
        _WORLD["world"] = world = build_world()
    return world


@pytest.mark.django_db
@pytest.mark.parametrize("body", [b"[" * 200_000, b"\xff\xfe" + "{}".encode("utf-16-le"), b"\x00" * 1000])
def test_the_import_api_answers_hostile_bodies_with_a_400_naming_the_line(body):
    world = build_world()
    client = APIClient()
    client.force_authenticate(world.users["lead"])
    for route in ("items", "judgments"):
        response = client.post(
            f"/api/v1/projects/{world.project.pk}/{route}/import/", data=body, content_type="application/x-ndjson"
        )
        assert response.status_code == 400, (route, response.status_code)
        assert response.json()["errors"][0]["line"] == 1


@pytest.mark.django_db
def test_imports_over_the_size_limit_get_413_and_write_nothing(settings):
    settings.CONCORD_MAX_IMPORT_BYTES = 1000
    world = build_world()
    n_items = Item.objects.count()
    body = b"\n".join(json.dumps({**VALID_ITEM, "external_id": f"big{i}"}).encode() for i in range(100))
    client = APIClient()
    client.force_authenticate(world.users["lead"])
    for route in ("items", "judgments"):
        response = client.post(
            f"/api/v1/projects/{world.project.pk}/{route}/import/", data=body, content_type="application/x-ndjson"
        )
        assert response.status_code == 413, route
        assert "CONCORD_MAX_IMPORT_BYTES" in response.json()["detail"]
        upload = SimpleUploadedFile("items.jsonl", body, content_type="application/x-ndjson")
        response = client.post(
            f"/api/v1/projects/{world.project.pk}/{route}/import/", {"file": upload}, format="multipart"
        )
        assert response.status_code == 413, route
    assert Item.objects.count() == n_items


@pytest.mark.django_db
def test_the_upload_page_refuses_a_file_over_the_limit_with_413(settings):
    settings.CONCORD_MAX_IMPORT_BYTES = 1000
    world = build_world()
    n_items = Item.objects.count()
    client = Client()
    client.force_login(world.users["lead"])
    upload = SimpleUploadedFile("items.jsonl", b"x" * 5000, content_type="application/x-ndjson")
    response = client.post(f"/projects/{world.project.pk}/items/upload/", {"file": upload})
    assert response.status_code == 413
    assert b"CONCORD_MAX_IMPORT_BYTES" in response.content
    assert Item.objects.count() == n_items
