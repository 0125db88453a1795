"""Round trips of conversations: a chat dataset's lines imported and exported in the same layout come back as
they were; Concord's own export (JSONL, Parquet) carries the turns and its items.jsonl re-imports them intact."""

import io
import json

import pyarrow.parquet as pq
import pytest

from annotation.models import Item
from annotation.services import item_import, project_create
from evaluation.services import ExportOptions, export_write
from tests.annotation.factories import MembershipFactory, ProjectFactory
from tests.conftest import client_for
from tests.evaluation.export.studies import jsonl, read_zip

pytestmark = pytest.mark.django_db


def msg(role, content):
    return {"role": role, "content": content}


MESSAGES_LINES = [
    {
        "id": "m1",
        "model": "gpt-x",
        "category": "travel",
        "messages": [msg("system", "Be brief."), msg("user", "Trains to Nice?"), msg("assistant", "Four a day.")],
    },
    {"id": "m2", "model": "gpt-x", "messages": [msg("user", "مرحبا"), msg("assistant", "أهلا")]},
]
PREFERENCE_LINES = [
    {
        "id": "p1",
        "prompt": [msg("user", "Hi")],
        "chosen": [msg("assistant", "Hello! How can I help?")],
        "rejected": [msg("assistant", "What.")],
        "score_chosen": 9.0,
    },
    {
        "id": "p2",
        "prompt": [msg("user", "Tell a joke"), msg("assistant", "About?"), msg("user", "Cats")],
        "chosen": [msg("assistant", "A cat walks into a bar…")],
        "rejected": [msg("assistant", "No.")],
    },
]
ARENA_LINES = [
    {
        "id": "q1",
        "model_a": "alpha",
        "model_b": "beta",
        "winner": "model_b",
        "conversation_a": [msg("user", "Hi"), msg("assistant", "Hey"), msg("user", "Bye"), msg("assistant", "Ciao")],
        "conversation_b": [msg("user", "Hi"), msg("assistant", "Hello"), msg("user", "Bye"), msg("assistant", "Bye!")],
    },
    {
        "id": "q2",
        "model_a": "beta",
        "model_b": "alpha",
        "conversation_a": [msg("user", "2+2?"), msg("assistant", "4")],
        "conversation_b": [msg("user", "2+2?"), msg("assistant", "Four")],
    },
]


@pytest.mark.parametrize(
    ("layout", "task_type", "lines"),
    [
        ("messages", "likert", MESSAGES_LINES),
        ("preference", "pairwise", PREFERENCE_LINES),
        ("arena", "pairwise", ARENA_LINES),
    ],
)
def test_a_chat_layout_imports_and_exports_back_as_it_was(lead, layout, task_type, lines):
    project = ProjectFactory(task_type=task_type)
    MembershipFactory(project=project, user=lead, role="lead")
    client = client_for(lead)
    body = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode()
    imported = client.post(f"/api/v1/projects/{project.id}/items/import/", body, content_type="application/x-ndjson")
    assert imported.status_code == 201, imported.json()

    response = client.get(f"/api/v1/projects/{project.id}/items/chat/", {"layout": layout})

    assert response.status_code == 200 and response["Content-Type"] == "application/x-ndjson"
    exported = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    assert exported == lines


def test_the_chat_export_names_a_bad_layout_and_is_for_leads_only(project, lead_client, rater_client):
    response = lead_client.get(f"/api/v1/projects/{project.id}/items/chat/", {"layout": "alpaca"})
    assert response.status_code == 400 and "messages, preference, arena" in response.json()["layout"]
    assert rater_client.get(f"/api/v1/projects/{project.id}/items/chat/", {"layout": "messages"}).status_code in (
        403,
        404,
    )


CONCORD_LINES = [
    {
        "external_id": "c1",
        "input": [{"role": "system", "text": "Be brief."}, {"role": "user", "text": "Hi"}],
        "outputs": [
            {"system": "s1", "text": "Hello."},
            {
                "system": "s2",
                "text": [
                    {"role": "assistant", "text": "Hey"},
                    {"role": "user", "text": "Bye"},
                    {"role": "assistant", "text": "Bye!"},
                ],
            },
        ],
    },
    {
        "external_id": "c2",
        "input": "a plain input",
        "outputs": [{"system": "s1", "text": "x"}, {"system": "s2", "text": "y"}],
    },
]


def conversation_table(project) -> list[tuple]:
    return [
        (i.external_id, i.input, i.turns, [(o.system, o.text, o.turns) for o in i.outputs.all()])
        for i in Item.objects.filter(project=project).prefetch_related("outputs").order_by("external_id")
    ]


def test_concords_export_carries_the_turns_and_reimports_them_intact(lead, tmp_path):
    original = project_create(
        created_by=lead, name="chat study", task_type="pairwise", criteria=[{"name": "helpfulness"}]
    )
    item_import(project=original, stream=io.BytesIO("".join(json.dumps(x) + "\n" for x in CONCORD_LINES).encode()))
    path = tmp_path / "export.zip"
    export_write(project=original, options=ExportOptions(formats=("jsonl", "parquet")), destination=path)
    files = read_zip(path)

    lines = {line["external_id"]: line for line in jsonl(files["data/items.jsonl"])}
    assert lines["c1"]["turns"] == CONCORD_LINES[0]["input"] and lines["c2"]["turns"] is None
    assert lines["c1"]["outputs"][1]["turns"] == CONCORD_LINES[0]["outputs"][1]["text"]
    assert "turns" not in lines["c1"]["outputs"][0]
    table = pq.read_table(io.BytesIO(files["data/items.parquet"])).to_pylist()
    assert {row["external_id"]: row["turns"] and json.loads(row["turns"]) for row in table} == {
        "c1": CONCORD_LINES[0]["input"],
        "c2": None,
    }

    copy = project_create(created_by=lead, name="copy", task_type="pairwise", criteria=[{"name": "helpfulness"}])
    assert item_import(project=copy, stream=io.BytesIO(files["data/items.jsonl"])) == 2
    assert conversation_table(copy) == conversation_table(original)
