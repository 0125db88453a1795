"""The ESA and MQM rater screens in the real rater loop (Playwright, Debian Chromium): errors marked with the mouse
and with the keyboard alone on right-to-left, mixed-script and CRLF/astral outputs, the next screen shown in place,
a model's proposals reviewed, at desktop, tablet and phone widths; the spans stored match the texts as imported,
code point for code point."""

import io
import json

import pytest

from annotation.models import ErrorSpan, Judgment, Membership
from annotation.services import item_import, project_create
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.browser_support import VIEWPORTS, at_every_width, drag_select, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pass-word-1234"  # UserFactory's
SOURCE = "The weather is fine today."
ARABIC = "الطقس جميل اليوم."
MIXED = "Le prix: 50 € — السعر 50 يورو 😀 ok"
CRLF = "Line one 😀\r\nline twö."


def _study(task_type: str, outputs: list[str], *, proposals=None, show_reference=False):
    lead = UserFactory(username=f"{task_type}-lead")
    project = project_create(
        created_by=lead,
        name=f"{task_type} screen",
        task_type=task_type,
        criteria=[{"name": "quality" if task_type == "esa" else "errors"}],
        show_reference=show_reference,
        randomise_output_order=False,
        instructions="Mark the errors.",
    )
    lines = [
        {
            "external_id": f"s{k}",
            "input": SOURCE,
            "references": ["Il fait beau."],
            "outputs": [
                {
                    "system": "mt",
                    "text": text,
                    **({"proposed_spans": proposals[k]} if proposals and k in proposals else {}),
                }
            ],
        }
        for k, text in enumerate(outputs)
    ]
    item_import(project=project, stream=io.BytesIO("\n".join(map(json.dumps, lines)).encode()))
    rater = UserFactory(username=f"{task_type}-rater")
    MembershipFactory(project=project, user=rater, role=Membership.Role.RATER)
    return project, rater


def _enter(page, live_server, rater, project):
    log_in(page, live_server.url, rater.username, PASSWORD, f"/projects/{project.pk}/rate/")
    page.wait_for_url("**/instructions/")
    with page.expect_navigation():
        page.click("#start")
    page.wait_for_selector(".error-spans.es-ready")
    page.wait_for_function("document.activeElement && document.activeElement.dataset.text === 'output'")


def _submit(page):
    """Enter on the score (or anywhere outside a text) sends the screen; the next one comes in place."""
    shown = page.get_attribute("html", "data-screen")
    page.click("#rate-submit")
    page.wait_for_function(
        "(shown) => document.querySelector('[data-testid=finished]') || (document.documentElement.dataset.screen"
        " !== shown && document.querySelector('.error-spans.es-ready'))",
        arg=shown,
    )


def _stored(rater) -> list[tuple[str, str, str]]:
    """(marked text, severity, category) of every current span of the rater, in item order."""
    rows = (
        ErrorSpan.objects.filter(judgment__rater=rater, judgment__is_current=True)
        .select_related("judgment__output", "judgment__item")
        .order_by("judgment__item_id", "start")
    )
    return [
        (
            (r.judgment.output.text if r.side == "target" else r.judgment.item.input)[r.start : r.end],
            r.severity,
            r.category,
        )
        for r in rows
    ]


def test_esa_with_the_mouse_right_to_left_and_mixed_scripts(page, live_server, screenshot):
    project, rater = _study("esa", [ARABIC, MIXED], show_reference=True)
    _enter(page, live_server, rater, project)
    # the source beside the output, the reference shown
    assert page.inner_text("[data-text=source]") == SOURCE and "Il fait beau." in page.inner_text(".es-texts")
    # an incomplete screen is not sent: its score is missing
    page.fill(".es-score input[type=number]", "35")
    page.click("#rate-submit")
    assert "still open" in page.inner_text("#rate-status") and not Judgment.objects.exists()
    for n in range(2):  # the two screens, in the rater's own order; the second comes in place of the first
        text = page.inner_text("[data-text=output]")
        direction = page.evaluate("getComputedStyle(document.querySelector('[data-text=output]')).direction")
        if text == ARABIC:  # a right-to-left output: "جميل"
            assert direction == "rtl"
            drag_select(page, "output", 6, 10, "rtl")
            page.click("button.es-severity[data-severity=major]")
        else:  # a mixed-script one: the Arabic run "السعر" in a left-to-right line
            assert (text, direction) == (MIXED, "ltr")
            drag_select(page, "output", MIXED.index("السعر"), MIXED.index("السعر") + 5, "rtl")
            page.click("button.es-severity[data-severity=minor]")
        page.fill(".es-score input[type=number]", "35" if text == ARABIC else "70")
        if n == 0:
            at_every_width(page, screenshot, "esa-screen")
        else:
            screenshot(page, "esa-screen-second")
        _submit(page)
    page.wait_for_selector("[data-testid=finished]")
    assert sorted(_stored(rater)) == sorted([("جميل", "major", ""), ("السعر", "minor", "")])
    assert sorted(Judgment.objects.values_list("output__text", "value")) == sorted([(ARABIC, 35.0), (MIXED, 70.0)])


def _tab_to(page, test: str, most=40):
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate(test):
            return
    raise AssertionError(f"Tab never reached {test}")


def test_mqm_with_the_keyboard_alone_across_crlf_and_astral_characters(page, live_server, screenshot):
    project, rater = _study("mqm", [CRLF, "Tout va bien."])
    _enter(page, live_server, rater, project)
    for _ in range(2):  # the two screens in the rater's own order
        shown = page.get_attribute("html", "data-screen")
        if page.evaluate("document.querySelector('[data-text=output]').textContent") == CRLF:  # CR and all
            # select "😀\r\nline" by keys: Home, → to the emoji, Shift+→ over it, the line break (one caret stop:
            # a grapheme) and "line"
            page.keyboard.press("Home")
            for _ in range(CRLF.index("😀")):
                page.keyboard.press("ArrowRight")
            for _ in range(6):
                page.keyboard.press("Shift+ArrowRight")
            page.keyboard.press("Enter")  # to the category
            assert page.evaluate("document.activeElement.tagName") == "SELECT"
            page.keyboard.press("ArrowDown")  # Accuracy/Addition
            page.keyboard.press("Tab")
            page.keyboard.press("Tab")  # past Minor to Major
            page.keyboard.press("Enter")
            screenshot(page, "mqm-screen-keyboard")
            # a source error, by keys on the source: Shift+Tab back to it
            page.keyboard.press("Shift+Tab")
            assert page.evaluate("document.activeElement.dataset.text") == "source"
            for _ in range(3):
                page.keyboard.press("Shift+ArrowRight")
            page.keyboard.press("Enter")  # to the severities (a source error has its category)
            page.keyboard.press("Enter")  # minor
            _tab_to(page, "document.activeElement.id === 'rate-submit'")
        else:  # no error, by keys: Tab to the checkbox, Space ticks it
            _tab_to(page, "document.activeElement.closest('.es-no-error') !== null")
            page.keyboard.press("Space")
            at_every_width(page, screenshot, "mqm-screen-no-error")
        page.keyboard.press("Enter")
        page.wait_for_function(
            "(shown) => document.querySelector('[data-testid=finished]') || "
            "(document.documentElement.dataset.screen !== shown && "
            "document.querySelector('.error-spans.es-ready'))",
            arg=shown,
        )
    page.wait_for_selector("[data-testid=finished]")
    assert _stored(rater) == [("The", "minor", "Source error"), ("😀\r\nline", "major", "Accuracy/Addition")]
    assert sorted(Judgment.objects.values_list("output__text", "value")) == [(CRLF, 5 + 1), ("Tout va bien.", 0)]


def test_esa_ai_proposals_are_reviewed_at_tablet_width(page, live_server, screenshot):
    proposals = {0: [{"start": 0, "end": 5, "severity": "major"}, {"start": 6, "end": 10, "severity": "minor"}]}
    project, rater = _study("esa", [ARABIC], proposals=proposals)
    page.set_viewport_size(VIEWPORTS["tablet"])
    _enter(page, live_server, rater, project)
    assert page.locator(".es-item.es-status-proposed").count() == 2
    page.click(".es-item[data-span='0'] [data-role=accept]")
    page.click(".es-item[data-span='1'] [data-role=delete]")  # rejected
    page.fill(".es-score input[type=number]", "55")
    screenshot(page, "esa-ai-tablet")
    _submit(page)
    page.wait_for_selector("[data-testid=finished]")
    rows = sorted(ErrorSpan.objects.values_list("start", "end", "origin", "proposal__severity"))
    assert rows == [(0, 5, "accepted", "major"), (6, 10, "rejected", "minor")]


def test_without_javascript_the_screen_says_it_needs_it(browser, live_server):
    project, rater = _study("esa", [ARABIC])
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    log_in(page, live_server.url, rater.username, PASSWORD, f"/projects/{project.pk}/rate/")
    page.goto(f"{live_server.url}/projects/{project.pk}/rate/")
    assert "needs JavaScript" in page.inner_text("[data-testid=needs-js]")
    context.close()
