"""The ``markdown`` filter: Markdown becomes HTML; raw HTML stays text, and nothing that runs survives."""

import pytest
from django.template import Context, Template

from annotation.templatetags.markdown_render import markdown_to_html


def test_markdown_is_rendered():
    html = markdown_to_html("## Steps\n\n1. Read **all**\n2. Judge *each*\n\n[guide](https://example.org/g)")
    assert "<h2>Steps</h2>" in html and "<strong>all</strong>" in html and "<em>each</em>" in html
    assert "<ol>" in html
    assert '<a href="https://example.org/g" rel="noopener noreferrer nofollow">guide</a>' in html


@pytest.mark.parametrize(
    ("source", "forbidden"),
    [
        ("<script>alert(1)</script>", "<script"),
        ('<img src=x onerror="alert(1)">', "<img"),
        ('<div onclick="alert(1)">x</div>', "<div"),
        ("[click](javascript:alert(1))", "javascript:"),
        ("[click](JaVaScRiPt:alert(1))", "avascript:"),
        ("[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", "data:"),
        ('![x](https://example.org/x.png" onerror="alert(1))', "<img"),
        ("<a href='javascript:alert(1)'>x</a>", "<a "),
        ("<iframe src='https://evil.example'></iframe>", "<iframe"),
    ],
)
def test_nothing_that_runs_survives(source, forbidden):
    html = markdown_to_html(f"Before {source} after")
    assert forbidden not in html
    assert html.startswith("<p>Before")


def test_raw_html_is_shown_as_text():
    assert markdown_to_html("a <b>bold</b> claim") == "<p>a &lt;b&gt;bold&lt;/b&gt; claim</p>"


def test_the_filter_marks_its_output_safe_and_takes_empty_text():
    template = Template("{% load markdown_render %}{{ text|markdown }}")
    assert template.render(Context({"text": "*hi*"})) == "<p><em>hi</em></p>"
    assert template.render(Context({"text": None})) == ""
