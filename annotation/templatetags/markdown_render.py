"""The ``markdown`` template filter: a project's instructions as sanitised HTML.

Raw HTML in the source is not Markdown here: it is shown as text (Python-Markdown's HTML passes are
removed), and the generated HTML then goes through nh3 (the Ammonia sanitiser) with a short list of
tags and only http, https and mailto links, so neither a script nor a ``javascript:`` link survives.
"""

import markdown as markdown_lib
import nh3
from django import template
from django.utils.safestring import mark_safe

register = template.Library()

TAGS = {
    "p",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "strong",
    "em",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
}
ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}}


def markdown_to_html(text: str) -> str:
    md = markdown_lib.Markdown(extensions=["sane_lists", "tables"], output_format="html")
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return nh3.clean(
        md.convert(text or ""),
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


@register.filter(name="markdown")
def markdown_filter(text: str) -> str:
    return mark_safe(markdown_to_html(text))  # noqa: S308 - sanitised by nh3 above
