"""Conversations through the real item import API: Concord's own lines with turns, the chat datasets' layouts,
and every kind of bad conversation refused with a 400 naming the line and the field, nothing stored."""

import json

import pytest

from annotation.models import Item, Output
from tests.annotation.factories import MembershipFactory, ProjectFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

CHAT = [{"role": "system", "text": "Be brief."}, {"role": "user", "text": "Capital of France?"}]


def ndjson(*records) -> bytes:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records).encode()


def post_items(client, project, *records):
    return client.post(
        f"/api/v1/projects/{project.id}/items/import/", ndjson(*records), content_type="application/x-ndjson"
    )


def line(external_id="c1", input=CHAT, outputs=None, **extra):
    return {
        "external_id": external_id,
        "input": input,
        "outputs": outputs or [{"system": "s1", "text": "Paris."}],
        **extra,
    }


def test_a_conversation_input_keeps_its_turns_and_a_plain_text_rendering(project, lead_client):
    response = post_items(lead_client, project, line())
    assert response.status_code == 201, response.json()
    item = Item.objects.get(project=project)
    assert item.turns == CHAT
    assert item.input == "system: Be brief.\n\nuser: Capital of France?"


def test_whole_conversation_outputs_keep_their_turns_beside_plain_ones(project, lead_client):
    whole = [
        {"role": "assistant", "text": "Paris."},
        {"role": "user", "text": "And Spain?"},
        {"role": "assistant", "text": "Madrid."},
    ]
    response = post_items(
        lead_client,
        project,
        line(outputs=[{"system": "s1", "text": whole}, {"system": "s2", "text": "Paris, France."}]),
    )
    assert response.status_code == 201, response.json()
    first, second = Output.objects.filter(item__project=project).order_by("position")
    assert first.turns == whole and first.text.startswith("assistant: Paris.\n\nuser: And Spain?")
    assert second.turns is None and second.text == "Paris, France."


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"input": [{"role": "moderator", "text": "hi"}]}, "input[1].role 'moderator' is not a role"),
        ({"input": []}, "input is an empty conversation"),
        ({"input": [{"role": "user", "text": "  "}]}, "input[1].text is empty"),
        ({"input": [{"role": "user", "text": "a\u0000b"}]}, "NUL"),
        ({"input": [{"role": "user", "text": 5}]}, "input[1].text must be a string (text only), got int"),
        ({"input": [{"role": 1, "text": "x"}]}, "input[1].role must be one of system, user, assistant, got int"),
        ({"input": ["user: hi"]}, "input must be a string, or a conversation"),
        ({"input": [{"role": "user", "text": "x", "name": "bob"}]}, "input[1] has unknown key 'name'"),
        ({"outputs": [{"system": "s", "text": [{"role": "bot", "text": "x"}]}]}, "outputs[1].text[1].role 'bot'"),
        ({"outputs": [{"system": "s", "turns": []}]}, "outputs[1].turns is an empty conversation"),
        ({"turns": CHAT, "input": "something else"}, "input and turns disagree"),
    ],
)
def test_bad_conversations_answer_400_naming_line_and_field_and_store_nothing(project, lead_client, bad, message):
    response = post_items(lead_client, project, line("ok1"), line("bad", **{"input": CHAT} | bad), line("ok2"))
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [e["line"] for e in errors] == [2] and message in errors[0]["error"], errors
    assert not Item.objects.filter(project=project).exists()


def test_an_exported_line_with_turns_beside_its_text_imports_as_it_is(project, lead_client):
    text = "system: Be brief.\n\nuser: Capital of France?"
    response = post_items(lead_client, project, line("a", input=text, turns=CHAT), line("b", input=None, turns=CHAT))
    assert response.status_code == 201, response.json()
    assert [(i.input, i.turns) for i in Item.objects.filter(project=project)] == [(text, CHAT)] * 2


MESSAGES = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]


@pytest.mark.parametrize(
    ("record", "input_turns", "outputs"),
    [
        (
            {"id": "m1", "messages": MESSAGES, "model": "gpt-x", "category": "chat"},
            [{"role": "user", "text": "Hi"}],
            [("gpt-x", "Hello!", None)],
        ),
        (
            {"id": "g1", "conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello!"}]},
            [{"role": "user", "text": "Hi"}],
            [("assistant", "Hello!", None)],
        ),
        (
            {
                "id": "p1",
                "prompt": [{"role": "user", "content": "Hi"}],
                "chosen": [{"role": "assistant", "content": "Hey"}],
                "rejected": [{"role": "assistant", "content": "Go away"}],
            },
            [{"role": "user", "text": "Hi"}],
            [("chosen", "Hey", None), ("rejected", "Go away", None)],
        ),
        (
            {
                "prompt_id": "u1",
                "prompt": "Hi",
                "chosen": [*MESSAGES[:1], {"role": "assistant", "content": "Hey"}],
                "rejected": [*MESSAGES[:1], {"role": "assistant", "content": "No"}],
                "score_chosen": 8.0,
            },
            [{"role": "user", "text": "Hi"}],
            [("chosen", "Hey", None), ("rejected", "No", None)],
        ),
        (
            {
                "chosen": [*MESSAGES[:1], {"role": "assistant", "content": "Hey"}],
                "rejected": [*MESSAGES[:1], {"role": "assistant", "content": "No"}],
            },
            [{"role": "user", "text": "Hi"}],
            [("chosen", "Hey", None), ("rejected", "No", None)],
        ),
        (
            {
                "question_id": "q1",
                "model_a": "alpha",
                "model_b": "beta",
                "winner": "model_a",
                "conversation_a": [
                    *MESSAGES,
                    {"role": "user", "content": "More"},
                    {"role": "assistant", "content": "A2"},
                ],
                "conversation_b": [
                    MESSAGES[0],
                    {"role": "assistant", "content": "Yo"},
                    {"role": "user", "content": "More"},
                    {"role": "assistant", "content": "B2"},
                ],
            },
            [{"role": "user", "text": "Hi"}],
            [
                (
                    "alpha",
                    None,
                    [
                        {"role": "assistant", "text": "Hello!"},
                        {"role": "user", "text": "More"},
                        {"role": "assistant", "text": "A2"},
                    ],
                ),
                (
                    "beta",
                    None,
                    [
                        {"role": "assistant", "text": "Yo"},
                        {"role": "user", "text": "More"},
                        {"role": "assistant", "text": "B2"},
                    ],
                ),
            ],
        ),
    ],
)
def test_chat_dataset_layouts_import_as_conversations(lead, record, input_turns, outputs):
    project = ProjectFactory(task_type="pairwise" if len(outputs) == 2 else "likert")
    MembershipFactory(project=project, user=lead, role="lead")
    response = post_items(client_for(lead), project, record)
    assert response.status_code == 201, response.json()
    item = Item.objects.get(project=project)
    assert item.turns == input_turns
    got = [(o.system, o.text, o.turns) for o in item.outputs.order_by("position")]
    assert [(s, t if turns is None else None, turns) for s, t, turns in got] == outputs


def test_a_chat_line_without_an_id_gets_a_stable_one_and_its_other_keys_as_meta(project, lead_client):
    record = {"messages": MESSAGES, "language": "en"}
    assert post_items(lead_client, project, record).status_code == 201
    item = Item.objects.get(project=project)
    assert item.external_id.startswith("chat-") and item.meta == {"language": "en"}
    again = post_items(lead_client, project, record)
    assert again.status_code == 400 and "duplicate external_id" in again.json()["errors"][0]["error"]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"messages": [{"role": "user", "content": "Hi"}]}, "the last message is the output judged"),
        (
            {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": [{"type": "text"}]}]},
            "messages[2].content must be a string (text only), got list",
        ),
        (
            {"messages": [{"role": "tool", "content": "x"}, {"role": "assistant", "content": "y"}]},
            "messages[1].role 'tool' is not a role",
        ),
        ({"messages": "Hi"}, "messages must be a list"),
        ({"conversations": [{"from": "bot", "value": "x"}]}, "conversations[1].from 'bot' is not a role"),
        ({"chosen": MESSAGES, "rejected": MESSAGES}, "chosen has nothing after the conversation both sides share"),
        (
            {"chosen": [{"role": "user", "content": "a"}], "rejected": [{"role": "user", "content": "b"}]},
            "share no beginning",
        ),
        (
            {
                "model_a": "x",
                "model_b": "",
                "conversation_a": [*MESSAGES[:1], {"role": "assistant", "content": "a"}],
                "conversation_b": MESSAGES,
            },
            "model_a and model_b must be the two systems' names",
        ),
    ],
)
def test_bad_chat_layout_lines_answer_400_naming_line_and_field(project, lead_client, record, message):
    response = post_items(lead_client, project, {"id": "fine", "messages": MESSAGES}, record)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [e["line"] for e in errors] == [2] and message in errors[0]["error"], errors
    assert not Item.objects.filter(project=project).exists()


def test_a_csv_line_takes_the_turns_as_a_json_cell_and_names_a_bad_one(project, lead_client):
    turns = json.dumps(CHAT).replace('"', '""')
    good = f'external_id,turns,output_1,system_1\nc1,"{turns}",Paris.,s1\n'.encode()
    url = f"/api/v1/projects/{project.id}/items/import/"
    assert lead_client.post(url, good, content_type="text/csv").status_code == 201
    assert Item.objects.get(project=project).turns == CHAT
    bad = b'external_id,turns,output_1,system_1\nc2,"[{""role"": ""bot"", ""text"": ""x""}]",Paris.,s1\n'
    response = lead_client.post(url, bad, content_type="text/csv")
    assert response.status_code == 400 and response.json()["errors"] == [
        {"line": 2, "error": "turns[1].role 'bot' is not a role; roles are system, user, assistant"}
    ]


def test_degraded_copies_are_not_told_apart_by_a_conversation_output_shown_as_plain_text(project, lead_client):
    whole = [{"role": "assistant", "text": "Paris is the capital."}, {"role": "user", "text": "And of Spain?"}]
    lines = [line(f"w{i}", outputs=[{"system": "s1", "turns": whole}]) for i in range(4)]
    lines += [line(f"p{i}", outputs=[{"system": "s1", "text": f"Paris, France, number {i}."}]) for i in range(4)]
    assert post_items(lead_client, project, *lines).status_code in (200, 201)

    made = lead_client.post(f"/api/v1/projects/{project.id}/qc/degraded/", {"n": 4, "seed": 3}, format="json")

    assert made.status_code in (200, 201), made.content
    copies = Item.objects.filter(project=project, degraded_from__isnull=False)
    assert copies.count() == 4
    for copy in copies:
        shown = [o.turns is None for o in copy.outputs.order_by("position")]
        assert shown == [o.turns is None for o in copy.degraded_from.outputs.order_by("position")], copy.external_id
