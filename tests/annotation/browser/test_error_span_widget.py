"""The error-span widget (annotation/task_types/static/annotation/error_spans.{js,css}) on a bare page: marking
spans with the mouse and with the keyboard alone, editing, deleting, reviewing proposed spans, no error, the ESA score,
MQM categories, whole-segment and source-side marks, right-to-left and astral-plane text (offsets in
code points), touch-sized targets at tablet width, at desktop, tablet and phone widths."""

import json
from pathlib import Path

import pytest

from tests.browser_support import VIEWPORTS, at_every_width, drag_select

pytestmark = pytest.mark.browser

STATIC = Path(__file__).resolve().parents[3] / "annotation" / "task_types" / "static" / "annotation"
SOURCE = "Die Katze saß auf der Matte."
OUTPUT = "The cat sat on the mat."


def open_widget(page, config, output=OUTPUT, source=SOURCE, value=None):
    """A form holding one widget, the two static files injected from disk; ``value``: the hidden input's
    value as a re-rendered form would send it back."""
    page.set_content(
        "<!doctype html><html lang='en'><head><meta name='viewport' content='width=device-width'>"
        "<style>body{font-family:sans-serif;margin:1rem;max-width:60rem}</style></head><body><main>"
        "<form id='f' method='post' action='/nowhere'><div class='error-spans' id='w'>"
        "<div data-text='source'></div><div data-text='output'></div></div></form></main></body></html>"
    )
    page.evaluate(
        """([config, source, output]) => {
            const w = document.getElementById('w');
            w.dataset.config = JSON.stringify(config);
            w.querySelector('[data-text=source]').textContent = source;
            w.querySelector('[data-text=output]').textContent = output;
        }""",
        [config, source, output],
    )
    if value is not None:
        page.evaluate(
            """([name, value]) => {
                const input = Object.assign(document.createElement('input'), {type: 'hidden', name, value});
                document.getElementById('w').appendChild(input);
            }""",
            [config["input"], json.dumps(value)],
        )
    page.add_style_tag(content=(STATIC / "error_spans.css").read_text())
    page.add_script_tag(content=(STATIC / "error_spans.js").read_text())
    page.wait_for_selector(".error-spans.es-ready")


def posted(page, name="error_spans"):
    """The widget's state as the form would post it."""
    data = page.evaluate("(n) => Object.fromEntries(new FormData(document.getElementById('f')))", name)
    return json.loads(data[name])


def press(page, key, times=1):
    for _ in range(times):
        page.keyboard.press(key)


def focused(page) -> str:
    return page.evaluate(
        "() => { const e = document.activeElement; return e.dataset.role || e.dataset.text ||"
        " e.dataset.severity || e.className || e.tagName; }"
    )


def test_esa_mouse_selection_severity_and_score(page, screenshot):
    # Given an ESA screen
    open_widget(page, {"protocol": "esa", "input": "error_spans"})
    assert posted(page) == {
        "version": 1,
        "protocol": "esa",
        "length": {"target": 23},
        "no_error": False,
        "spans": [],
        "score": None,
        "complete": False,
    }
    # ESA marks no source-side errors: the source is plain text
    assert page.get_attribute("[data-text=source]", "tabindex") is None

    # When "cat" is selected with the mouse, the choice of severity opens on it
    drag_select(page, "output", 4, 7)
    assert "“cat”" in page.inner_text(".es-status")
    assert focused(page) == "minor"
    page.click("button.es-severity[data-severity=major]")
    assert posted(page)["spans"] == [
        {"side": "target", "start": 4, "end": 7, "severity": "major", "category": None, "status": "added"}
    ]
    assert page.get_attribute("mark.es-mark", "class") == "es-mark es-sev-major"

    # Then the score: unset until the rater sets it, the number and the slider follow each other
    assert page.locator(".es-score.unset").count() == 1
    page.fill(".es-score input[type=number]", "64")
    assert page.input_value(".es-score input[type=range]") == "64"
    state = posted(page)
    assert (state["score"], state["complete"]) == (64, True)
    assert page.locator(".es-score.unset").count() == 0
    screenshot(page, "error-spans-esa-marked")


def test_esa_keyboard_only(page):
    open_widget(page, {"protocol": "esa", "input": "error_spans"})
    # Tab reaches the output; the keys are written on the screen
    press(page, "Tab")
    assert focused(page) == "output"
    assert "Shift" in page.inner_text(".es-keys") and "Enter" in page.inner_text(".es-keys")

    # Enter with nothing selected says how to select
    press(page, "Enter")
    assert "Nothing selected" in page.inner_text(".es-status")

    # → ×4 then Shift+→ ×3 selects "cat"; Enter moves to the severities, Enter on "Minor" marks it
    press(page, "ArrowRight", 4)
    press(page, "Shift+ArrowRight", 3)
    assert page.inner_text(".es-selected") == "cat"
    press(page, "Enter")
    assert focused(page) == "minor"
    press(page, "Enter")
    assert focused(page) == "output"
    # Ctrl+→ jumps by word: to "sat"; End and Shift+Home select everything, Esc drops it
    press(page, "Control+ArrowRight")
    press(page, "Shift+Control+ArrowRight")
    assert page.inner_text(".es-selected") == "sat "
    press(page, "Escape")
    assert page.locator(".es-selected").count() == 0
    # Tab over to the slider; arrows set the score
    for _ in range(12):
        press(page, "Tab")
        if page.evaluate("document.activeElement.type") == "range":
            break
    press(page, "ArrowRight")
    state = posted(page)
    assert state["spans"] == [
        {"side": "target", "start": 4, "end": 7, "severity": "minor", "category": None, "status": "added"}
    ]
    assert (state["score"], state["complete"]) == (51, True)


def test_edit_and_delete_with_the_keyboard(page):
    open_widget(page, {"protocol": "esa", "input": "error_spans"})
    page.focus("[data-text=output]")
    press(page, "ArrowRight", 8)
    press(page, "Shift+ArrowRight", 3)
    press(page, "Enter")
    press(page, "Enter")  # "sat", minor

    # Edit: the span's text is selected again; Shift+→ widens it to "sat on", then Major
    page.focus(".es-item [data-role=edit]")
    press(page, "Enter")
    assert "Editing" in page.inner_text(".es-status")
    page.focus("[data-text=output]")
    assert page.inner_text(".es-selected") == "sat"
    press(page, "End")
    press(page, "Home")  # Home/End move the caret and drop the selection...
    press(page, "ArrowRight", 8)
    press(page, "Shift+ArrowRight", 6)  # ...so the new range is selected from the start
    press(page, "Enter")
    page.focus("button.es-severity[data-severity=major]")
    press(page, "Enter")
    (span,) = posted(page)["spans"]
    assert (span["start"], span["end"], span["severity"], span["status"]) == (8, 14, "major", "added")
    assert page.inner_text(".es-mark") == "sat on"

    # Delete removes a span the rater added
    page.focus(".es-item [data-role=delete]")
    press(page, "Enter")
    assert posted(page)["spans"] == []
    assert page.locator("mark").count() == 0


def test_no_error(page):
    open_widget(page, {"protocol": "mqm", "input": "error_spans"})
    page.check(".es-no-error input")
    state = posted(page)
    assert (state["no_error"], state["spans"], state["complete"]) == (True, [], True)
    assert "No error" in page.inner_text(".es-list")
    # Marking a span withdraws "no error", and it cannot be ticked while a span stands
    drag_select(page, "output", 0, 3)
    page.select_option("select.es-category-select", "Other")
    page.click("button.es-severity[data-severity=minor]")
    assert posted(page)["no_error"] is False
    assert page.is_disabled(".es-no-error input")


def test_mqm_category_whole_segment_and_source_error(page, screenshot):
    open_widget(page, {"protocol": "mqm", "input": "mqm_spans"})
    # The default typology: WMT's MQM categories, grouped; non-translation and source errors apart
    groups = page.eval_on_selector_all("select.es-category-select optgroup", "gs => gs.map(g => g.label)")
    assert groups == ["Accuracy", "Fluency", "Terminology", "Style", "Locale convention"]
    values = page.eval_on_selector_all("select.es-category-select option", "os => os.map(o => o.value)")
    assert values[:5] == [
        "",  # "Choose a category…": severities stay disabled until one is chosen
        "Accuracy/Addition",
        "Accuracy/Omission",
        "Accuracy/Mistranslation",
        "Accuracy/Untranslated text",
    ]
    assert "Fluency/Character encoding" in values and "Other" in values
    assert "Non-translation" not in values and "Source error" not in values
    assert [b.inner_text() for b in page.query_selector_all(".es-severity")] == ["Minor", "Major", "Critical"]

    # A category then a severity, by keyboard: Enter leads to the category, Tab to the severities
    page.focus("[data-text=output]")
    press(page, "ArrowRight", 19)
    press(page, "Shift+ArrowRight", 3)
    press(page, "Enter")
    assert page.evaluate("document.activeElement.tagName") == "SELECT"
    assert page.is_disabled("button.es-severity[data-severity=critical]")
    press(page, "ArrowDown")  # the closed select steps through the categories
    assert page.input_value("select.es-category-select") == "Accuracy/Addition"
    page.select_option("select.es-category-select", "Fluency/Grammar")
    page.click("button.es-severity[data-severity=critical]")
    # A source-side error on the source text
    drag_select(page, "source", 4, 9)
    assert page.is_disabled("select.es-category-select")
    page.click("button.es-severity[data-severity=major]")
    # Non-translation marks the whole segment
    page.click("button.es-non-translation")
    assert page.get_attribute("button.es-non-translation", "aria-pressed") == "true"
    state = posted(page, "mqm_spans")
    assert state["length"] == {"target": 23, "source": 28}
    assert state["spans"] == [
        {
            "side": "target",
            "start": 19,
            "end": 22,
            "severity": "critical",
            "category": "Fluency/Grammar",
            "status": "added",
        },
        {"side": "source", "start": 4, "end": 9, "severity": "major", "category": "Source error", "status": "added"},
        {
            "side": "target",
            "start": 0,
            "end": 23,
            "severity": "major",
            "category": "Non-translation",
            "status": "added",
        },
    ]
    assert "score" not in state
    # Spans are focusable and named by severity and category
    labels = page.eval_on_selector_all(".es-chip", "bs => bs.map(b => b.getAttribute('aria-label'))")
    assert labels[0] == "Major error (Source error) in the source: “Katze”: press to edit"
    assert "Critical error (Fluency/Grammar): “mat”" in labels[2]
    screenshot(page, "error-spans-mqm-marked")
    page.click("button.es-non-translation")  # pressed again: withdrawn
    assert len(posted(page, "mqm_spans")["spans"]) == 2


def test_proposed_spans_are_accepted_edited_or_rejected(page, screenshot):
    # Given three AI-proposed spans (the widget copies only the span's fields, whatever else comes)
    prefilled = [
        {"start": 4, "end": 7, "severity": "minor", "category": "Accuracy/Mistranslation"},
        {"start": 8, "end": 11, "severity": "major", "category": "Fluency/Grammar", "gold": True},
        {"start": 19, "end": 22, "severity": "minor", "category": "Style/Awkward"},
    ]
    open_widget(page, {"protocol": "mqm", "input": "error_spans", "prefilled": prefilled})
    assert [s["status"] for s in posted(page)["spans"]] == ["proposed"] * 3
    assert posted(page)["complete"] is False  # proposals are to be reviewed
    assert page.locator("mark.es-proposed").count() == 3
    screenshot(page, "error-spans-proposed")

    # A click on a mark in the text goes to its entry in the list
    page.click("mark.es-mark >> nth=1")
    assert page.evaluate("document.activeElement.closest('.es-item').dataset.span") == "1"
    # Accept the first, reject the second, edit the third's severity
    items = page.locator(".es-item")
    items.nth(0).locator("[data-role=accept]").click()
    items.nth(1).locator("[data-role=delete]").click()
    items.nth(2).locator("[data-role=edit]").click()
    page.click("button.es-severity[data-severity=major]")
    spans = posted(page)["spans"]
    assert [(s["status"], s["severity"], s["proposed"]) for s in spans] == [
        ("accepted", "minor", 0),
        ("rejected", "major", 1),
        ("edited", "major", 2),
    ]
    assert all(set(s) == {"side", "start", "end", "severity", "category", "status", "proposed"} for s in spans)
    assert "gold" not in page.input_value("input[name=error_spans]")
    assert posted(page)["complete"] is True
    assert page.locator("mark").count() == 2  # a rejected proposal is no longer marked in the text

    # Restore puts a rejected proposal back to be reviewed
    page.locator(".es-item").nth(1).locator("[data-role=restore]").click()
    assert posted(page)["spans"][1]["status"] == "proposed"


HEBREW = "שלום עולם יפה"
ARABIC = "هذه ترجمة جيدة"


def test_right_to_left_output_by_keyboard_and_mouse(page, screenshot):
    open_widget(page, {"protocol": "esa", "input": "error_spans"}, output=HEBREW, source="Hello beautiful world")
    assert page.evaluate("getComputedStyle(document.querySelector('[data-text=output]')).direction") == "rtl"
    # In right-to-left text ← moves forward: ← ×5, Shift+← ×4 selects the second word
    page.focus("[data-text=output]")
    press(page, "ArrowLeft", 5)
    press(page, "Shift+ArrowLeft", 4)
    assert page.inner_text(".es-selected") == "עולם"
    press(page, "Enter")
    press(page, "Enter")
    assert posted(page)["spans"][0] | {"severity": None} == {
        "side": "target",
        "start": 5,
        "end": 9,
        "severity": None,
        "category": None,
        "status": "added",
    }
    # The mouse drags from right to left over the last word
    drag_select(page, "output", 10, 13, direction="rtl")
    page.click("button.es-severity[data-severity=major]")
    assert [(s["start"], s["end"]) for s in posted(page)["spans"]] == [(5, 9), (10, 13)]
    screenshot(page, "error-spans-hebrew")

    open_widget(page, {"protocol": "mqm", "input": "error_spans"}, output=ARABIC, source="This is a good translation")
    drag_select(page, "output", 4, 9, direction="rtl")
    page.select_option("select.es-category-select", "Accuracy/Mistranslation")
    page.click("button.es-severity[data-severity=minor]")
    (span,) = posted(page)["spans"]
    assert (span["start"], span["end"], ARABIC[4:9]) == (4, 9, "ترجمة")
    screenshot(page, "error-spans-arabic")


# Latin, an emoji, two CJK Extension B ideographs (each one code point, two UTF-16 units), Arabic, and a
# family emoji (five code points, one grapheme).
MIXED = "Hi 😀 𠀀𠀁 نص عربي ok 👩‍👩‍👧 end"


def test_mixed_scripts_and_astral_characters_are_counted_in_code_points(page, screenshot):
    assert len(MIXED) == 28 and len(MIXED.encode("utf-16-le")) // 2 == 34
    open_widget(page, {"protocol": "mqm", "input": "error_spans"}, output=MIXED)
    # The mouse over the two ideographs
    start = MIXED.index("𠀀")
    drag_select(page, "output", start, start + 2)
    page.select_option("select.es-category-select", "Fluency/Spelling")
    page.click("button.es-severity[data-severity=minor]")
    # The keyboard over the family emoji: one grapheme, so one Shift+→ takes all five code points
    page.focus("[data-text=output]")
    press(page, "Home")
    press(page, "ArrowRight", MIXED.index("👩"))
    press(page, "Shift+ArrowRight")
    assert page.inner_text(".es-selected") == "👩‍👩‍👧"
    press(page, "Enter")
    page.select_option("select.es-category-select", "Fluency/Character encoding")
    page.click("button.es-severity[data-severity=major]")
    # The Arabic word, dragged right to left inside left-to-right text
    word = MIXED.index("عربي")
    drag_select(page, "output", word, word + 4, direction="rtl")
    page.select_option("select.es-category-select", "Accuracy/Untranslated text")
    page.click("button.es-severity[data-severity=minor]")
    state = posted(page)
    assert state["length"]["target"] == 28
    assert [MIXED[s["start"] : s["end"]] for s in state["spans"]] == ["𠀀𠀁", "👩‍👩‍👧", "عربي"]
    assert [(s["start"], s["end"]) for s in state["spans"]] == [(5, 7), (19, 24), (11, 15)]
    assert [s["category"] for s in state["spans"]] == [
        "Fluency/Spelling",
        "Fluency/Character encoding",
        "Accuracy/Untranslated text",
    ]
    screenshot(page, "error-spans-mixed")


def test_fits_and_has_touch_sized_targets_at_tablet_and_phone_width(page, screenshot):
    prefilled = [{"start": 4, "end": 7, "severity": "major", "category": "Accuracy/Mistranslation"}]
    open_widget(page, {"protocol": "mqm", "input": "error_spans", "prefilled": prefilled})
    drag_select(page, "output", 19, 22)
    at_every_width(page, screenshot, "error-spans-mqm")
    open_widget(page, {"protocol": "esa", "input": "error_spans", "prefilled": prefilled})
    at_every_width(page, screenshot, "error-spans-esa")
    for width in ("tablet", "phone"):
        page.set_viewport_size(VIEWPORTS[width])
        small = page.evaluate(
            """() => Array.from(document.querySelectorAll(
                    '.error-spans button, .error-spans select, .error-spans input[type=number],'
                    + ' .error-spans input[type=range], .es-no-error'))
                .map(e => [e.className || e.type, e.getBoundingClientRect()])
                .filter(([, r]) => r.height < 44 || r.width < 44)
                .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`)"""
        )
        assert small == [], width
    # Focus is visible on a span's controls
    page.focus("[data-text=output]")
    for _ in range(10):
        press(page, "Tab")
        if page.evaluate("document.activeElement.classList.contains('es-chip')"):
            break
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"


def test_a_re_rendered_form_gets_its_marks_back(page):
    # Given a posted state sent back (e.g. the server refused the screen for another field)
    config = {"protocol": "esa", "input": "error_spans", "prefilled": [{"start": 0, "end": 3, "severity": "minor"}]}
    sent = {
        "version": 1,
        "protocol": "esa",
        "no_error": False,
        "score": 40,
        "spans": [
            {
                "side": "target",
                "start": 0,
                "end": 3,
                "severity": "minor",
                "category": None,
                "status": "rejected",
                "proposed": 0,
            },
            {"side": "target", "start": 4, "end": 7, "severity": "major", "category": None, "status": "added"},
        ],
    }
    beyond = {"side": "target", "start": 20, "end": 99, "severity": "minor", "category": None, "status": "added"}
    open_widget(page, config, value=sent | {"spans": [*sent["spans"], beyond]})
    # Then the widget shows and posts the same marks and score, not the proposals afresh, and drops a
    # span that does not lie within the text
    state = posted(page)
    assert state["spans"] == sent["spans"] and state["score"] == 40
    assert page.input_value(".es-score input[type=number]") == "40"
    assert page.inner_text("mark") == "cat"


def test_touch_selection_by_the_platforms_handles_then_a_tap(browser):
    # Given a phone with a touch screen, where the text is selected with the system's handles (set here
    # as a script would: a long press cannot be synthesised) and no mouseup follows
    context = browser.new_context(viewport=VIEWPORTS["phone"], has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        open_widget(page, {"protocol": "esa", "input": "error_spans"}, output=MIXED)
        start = MIXED.index("ok")
        page.evaluate(
            """(start) => {
                const node = document.querySelector('[data-text=output] [data-s]').firstChild;
                let unit = 0, k = 0;
                for (const ch of node.data) { if (k === start) break; unit += ch.length; k++; }
                const r = document.createRange();
                r.setStart(node, unit);
                r.setEnd(node, unit + 2);
                getSelection().removeAllRanges();
                getSelection().addRange(r);
            }""",
            start,
        )
        page.wait_for_function("!document.querySelector('button.es-severity').disabled")
        # When a severity is tapped
        page.tap("button.es-severity[data-severity=major]")
        # Then the selection is marked, in code points
        (span,) = posted(page)["spans"]
        assert (span["start"], span["end"], span["severity"]) == (start, start + 2, "major")
    finally:
        context.close()
