"""Every task type's rating screen shows a conversation input (and whole-conversation outputs) as a transcript
with roles through the one shared include; the rater API serves the turns beside the plain text."""

import re

import pytest

from annotation.models import Assignment, Item
from annotation.services import item_import
from annotation.services.item_changes import ItemChangeRefused, item_import_update, item_text_replace
from annotation.task_types import REGISTRY
from tests.annotation.factories import MembershipFactory, ProjectFactory
from tests.annotation.import_lines import jsonl
from tests.annotation.rating import add_raters
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

TURNS = [
    {"role": "system", "text": "You are a travel guide."},
    {"role": "user", "text": "Où est la tour Eiffel ?"},
    {"role": "assistant", "text": "À Paris."},
    {"role": "user", "text": "أين يقع برج إيفل؟"},
]
WHOLE = [
    {"role": "assistant", "text": "في باريس."},
    {"role": "user", "text": "Thanks"},
    {"role": "assistant", "text": "You are welcome."},
]


def conversation_project(slug: str):
    project = ProjectFactory(task_type=slug, criteria=["quality"])
    outputs = [{"system": "whole", "text": WHOLE}, {"system": "next", "text": "In Paris, on the Champ de Mars."}]
    item_import(project=project, stream=jsonl({"external_id": "c1", "input": TURNS, "outputs": outputs}))
    return project


def screen_html(client, project) -> str:
    (rater,) = add_raters(project)
    client.force_login(rater)
    client.get(f"/projects/{project.pk}/instructions/")
    response = client.get(f"/projects/{project.pk}/rate/")
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("slug", sorted(REGISTRY))
def test_every_task_types_screen_shows_the_conversation_with_roles(client, slug):
    html = screen_html(client, conversation_project(slug))
    transcripts = re.findall(r'<ol class="transcript".*?</ol>', html, flags=re.S)
    assert transcripts, "no transcript"
    first = transcripts[0]
    assert re.findall(r'data-role="(\w+)"', first) == ["system", "user", "assistant", "user"]
    assert first.count('dir="auto"') == 4 and 'tabindex="0"' in first
    assert "أين يقع برج إيفل؟" in first and "Où est la tour Eiffel ?" in first
    if REGISTRY[slug].reads_texts:
        return  # error-span screens show each output in their span widget, as the text the offsets count
    assert len(transcripts) == 2, "the whole-conversation output is a transcript too"
    assert re.findall(r'data-role="(\w+)"', transcripts[1]) == ["assistant", "user", "assistant"]
    assert '<div class="text" dir="auto">In Paris, on the Champ de Mars.</div>' in html


def test_the_rater_api_serves_turns_beside_the_plain_text(lead):
    project = conversation_project("likert")
    (rater,) = add_raters(project)
    screen = client_for(rater).post(f"/api/v1/projects/{project.pk}/next/").json()
    assert screen["item"]["turns"] == TURNS and screen["item"]["input"].startswith("system: You are a travel guide.")
    by_text = {o["text"]: o.get("turns") for o in screen["item"]["outputs"]}
    assert by_text["In Paris, on the Champ de Mars."] is None
    assert [turns for turns in by_text.values() if turns] == [WHOLE]
    assignment = Assignment.objects.get(rater=rater)
    assert assignment.item.turns == TURNS


def test_the_leads_item_page_shows_the_conversation_and_sends_edits_to_the_update_upload(client, lead):
    project = conversation_project("likert")
    MembershipFactory(project=project, user=lead, role="lead")
    client.force_login(lead)
    html = client.get(f"/projects/{project.pk}/items/id/c1/").content.decode()
    assert html.count('<ol class="transcript"') == 2 and 'data-role="system"' in html
    assert 'data-testid="replace-form"' not in html and "holds a conversation" in html
    item = Item.objects.get(project=project)
    with pytest.raises(ItemChangeRefused, match="holds a conversation"):
        item_text_replace(project=project, item=item, input="plain now", output_texts=["a", "b"], by=lead)
    assert Item.objects.get(pk=item.pk).turns == TURNS


def test_a_conversation_item_is_rewritten_by_the_update_upload(lead):
    project = conversation_project("likert")
    changed = [*TURNS[:-1], {"role": "user", "text": "Where is the Louvre?"}]
    report = item_import_update(
        project=project,
        stream=jsonl(
            {
                "external_id": "c1",
                "input": changed,
                "outputs": [{"system": "whole", "text": WHOLE}, {"system": "next", "text": "In Paris."}],
            }
        ),
    )
    assert [(line.outcome, line.detail) for line in report.lines] == [("updated", "input, turns, outputs")]
    item = Item.objects.get(project=project)
    assert item.turns == changed and item.input.endswith("user: Where is the Louvre?")
    assert [o.turns for o in item.outputs.order_by("position")] == [WHOLE, None]
