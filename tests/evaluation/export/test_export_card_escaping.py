"""The data card keeps users' text as text: HTML in a project name, instructions, criteria, labels,
subgroups, systems or rater names is escaped where it enters the Markdown; the card's own Markdown and
the front matter's data are kept."""

import json
from datetime import UTC, datetime, timedelta

import markdown
import pytest
import yaml

from agreement.services import snapshot_compute_for_project
from annotation.services import item_import, judgment_import, project_create
from evaluation.export.card import cell, user_text
from evaluation.services import ExportOptions, export_write
from tests.evaluation.export.studies import lines, read_zip

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert(1)</script>"
NAME = f"Study {SCRIPT} & co"
CRITERION = '<img src=x onerror="alert(2)">'
SUBGROUP = "<b>news</b>"
SYSTEM = "<i>bart</i>"
RATER = "<u>worker</u>"
START = datetime(2024, 3, 4, 9, 0, tzinfo=UTC)


@pytest.fixture
def card(lead, tmp_path):
    project = project_create(
        created_by=lead,
        name=NAME,
        task_type="likert",
        criteria=[{"name": CRITERION, "scale_min": 1, "scale_max": 3, "labels": ["<em>bad</em>", "ok", "good"],
                   "help_text": f"Is it good? {SCRIPT}"}],
        instructions=f"Rate **each** output.\n\n{SCRIPT}\n<iframe src=//evil></iframe>",
        raters_per_item=2,
        double_annotation_share=1.0,
    )  # fmt: skip
    item_import(project=project, stream=lines([
        {"external_id": f"i{i}", "input": "x", "subgroup": SUBGROUP, "outputs": [{"system": SYSTEM, "text": "y"}]}
        for i in range(40)
    ]))  # fmt: skip
    judgment_import(project=project, stream=lines([
        {"item": f"i{i}", "system": SYSTEM, "criterion": CRITERION, "rater": rater, "value": 1 + (i + k * (i % 3)) % 3,
         "submitted_at": (START + timedelta(minutes=i)).isoformat()}
        for i in range(40) for k, rater in enumerate((RATER, "w2"))
    ]))  # fmt: skip
    snapshot_compute_for_project(project_id=project.id)
    path = tmp_path / "export.zip"
    export_write(project=project, options=ExportOptions(formats=("jsonl",), include_usernames=True), destination=path)
    files = read_zip(path)
    return files["README.md"].decode(), json.loads(files["card.json"])


def test_no_user_html_reaches_the_rendered_card(card):
    readme, _ = card
    _, front, body = readme.split("---\n", 2)
    rendered = markdown.markdown(body, extensions=["tables"])
    for tag in ("<script", "<img src=x", "<iframe", "<b>", "<i>", "<u>", "<em>bad"):  # the chart is an <img
        assert tag not in rendered, tag
    assert "# Study &lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in body
    assert "> &lt;script&gt;alert(1)&lt;/script&gt;" in body and "> &lt;iframe src=//evil&gt;&lt;/iframe&gt;" in body
    assert '&lt;img src=x onerror="alert(2)"&gt;' in body  # in the criteria table, a heading and the summary
    for escaped in ("&lt;b&gt;news&lt;/b&gt;", "&lt;i&gt;bart&lt;/i&gt;", "&lt;u&gt;worker&lt;/u&gt;"):
        assert escaped in body, escaped


def test_the_cards_own_markdown_and_the_front_matter_are_kept(card):
    readme, facts = card
    _, front, body = readme.split("---\n", 2)
    rendered = markdown.markdown(body, extensions=["tables"])
    # the instructions' own Markdown still renders; the card's headings, tables and code stay
    assert (
        "<strong>each</strong>" in rendered
        and "<table>" in rendered
        and "<code>data/judgments.jsonl</code>" in rendered
    )
    assert "## Task, instructions and criteria" in body
    # the front matter is YAML data (Hugging Face shows it as text), and card.json keeps the facts as given
    assert yaml.safe_load(front)["pretty_name"] == NAME
    assert facts["project"]["name"] == NAME and facts["criteria"][0]["name"] == CRITERION


def test_table_cells_escape_user_html_but_not_the_cards_markdown():
    assert cell("a < b & c | d") == "a &lt; b &amp; c \\| d"
    assert user_text("two\nlines <x>") == "two lines &lt;x&gt;"
