"""A rating screen on a phone: choice labels wrap between words, never inside one ("Unreada-ble"); the flag's
title wraps beside its marker and its reasons are 44 px touch targets; a RankME slider takes the whole width."""

import pytest

from tests.annotation.browser.test_rater_screens_fit import open_screen, screen_project
from tests.browser_support import VIEWPORTS, page_overflow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Words of the choice labels that the browser split over two lines (a word drawn as more than one box).
SPLIT_WORDS = """() => [...document.querySelectorAll('label.point .lab')].flatMap(lab => {
    const text = lab.firstChild, split = [];
    for (const m of text.data.matchAll(/\\S+/g)) {
        const r = document.createRange(); r.setStart(text, m.index); r.setEnd(text, m.index + m[0].length);
        if (r.getClientRects().length > 1) split.push(m[0]);
    }
    return split; })"""


def test_likert_labels_and_the_flag_on_a_phone(page, live_server, screenshot):
    project, rater = screen_project("likert")
    page.set_viewport_size(VIEWPORTS["phone"])
    open_screen(page, live_server, project, rater)
    assert page.locator("label.point .lab", has_text="Unreadable").count() == 4
    assert page.evaluate(SPLIT_WORDS) == []

    flag = page.locator("details.flag summary")
    flag.click()
    title = flag.bounding_box()
    marker_right = page.evaluate("""() => { const s = document.querySelector('details.flag summary');
        return s.getBoundingClientRect().left + parseFloat(getComputedStyle(s, '::before').width); }""")
    text_left = page.evaluate("""() => { const s = document.querySelector('details.flag summary');
        const r = document.createRange(); r.selectNodeContents(s);
        return Math.min(...[...r.getClientRects()].map(b => b.left)); }""")
    assert text_left >= marker_right  # the second line starts under the first, not under the marker
    assert title["height"] >= 44
    assert min(c.bounding_box()["height"] for c in page.locator("details.flag label.choice").all()) >= 44
    assert page_overflow(page) == 0
    screenshot(page, "rate-likert-phone-flag-open")


def test_a_rankme_slider_takes_the_width_of_a_phone(page, live_server, screenshot):
    project, rater = screen_project("rankme")
    page.set_viewport_size(VIEWPORTS["phone"])
    open_screen(page, live_server, project, rater)
    question = page.locator("fieldset.q").first
    slider = question.locator("input[type=range]").bounding_box()
    assert slider["width"] >= 0.85 * question.bounding_box()["width"]
    assert slider["height"] >= 44
    low, number, high = (
        question.locator(s).bounding_box()
        for s in ("[data-testid=low-end]", "input[type=number]", "[data-testid=high-end]")
    )
    assert low["y"] > slider["y"] and low["x"] < number["x"] < high["x"]
    assert page_overflow(page) == 0
    screenshot(page, "rate-rankme-phone-slider")
