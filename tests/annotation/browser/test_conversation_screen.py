"""The conversation screen in a browser at a laptop's, a tablet's and a phone's width: a long transcript scrolls in
its own box (the page never sideways), a right-to-left turn runs right to left among left-to-right ones, roles
are shown, and a rater scrolls the transcript and answers with the keyboard only."""

import pytest

from annotation.models import Judgment
from annotation.services import item_import
from tests.accessibility.test_pages_meet_wcag import problems
from tests.annotation.browser.test_rater_keyboard import PASSWORD, wait_for_screen
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.annotation.import_lines import jsonl
from tests.annotation.rating import add_raters
from tests.browser_support import VIEWPORTS, at_every_width, log_in, page_overflow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARABIC = "مرحبا، أريد أن أحجز غرفة في فندق قريب من البحر لثلاث ليال في الأسبوع القادم."


def long_conversation(n_exchanges: int = 12) -> list[dict]:
    turns = [{"role": "system", "text": "You are a helpful travel agent. Answer in the user's language."}]
    for k in range(n_exchanges):
        turns.append(
            {
                "role": "user",
                "text": f"Question {k + 1}: what about the trains from Lyon to Nice "
                f"on day {k + 1}, and is there a night train?",
            }
        )
        turns.append(
            {
                "role": "assistant",
                "text": f"Answer {k + 1}: there are four direct trains a day; the "
                f"first leaves at 06:04 and takes about 4 h 30 min. " * 2,
            }
        )
    turns.append({"role": "user", "text": ARABIC})
    return turns


def conversation_project(task_type: str, outputs: list[dict]):
    project = ProjectFactory(
        task_type=task_type,
        criteria=["helpfulness"],
        name=f"{task_type} conversations",
        instructions="Judge the assistant's reply to the conversation.",
    )
    item_import(
        project=project,
        stream=jsonl(
            *({"external_id": f"chat-{k}", "input": long_conversation(), "outputs": outputs} for k in range(2))
        ),
    )
    (rater,) = add_raters(project)
    return project, rater


def open_screen(page, live_server, project, rater):
    log_in(page, live_server.url, rater.username, PASSWORD, f"/projects/{project.pk}/instructions/")
    page.goto(f"{live_server.url}/projects/{project.pk}/rate/")
    wait_for_screen(page)


SCROLLS = """(el) => ({scroll: el.scrollHeight, client: el.clientHeight, top: el.scrollTop})"""


def test_a_long_conversation_scrolls_in_its_box_with_a_right_to_left_turn_at_every_width(page, live_server, screenshot):
    project, rater = conversation_project(
        "pairwise",
        [
            {"system": "a", "text": "بالتأكيد! لدينا فندق على الشاطئ بسعر مناسب."},
            {"system": "b", "text": "Sure, I can book a sea-view room for three nights next week."},
        ],
    )
    open_screen(page, live_server, project, rater)
    transcript = page.locator("section.source ol.transcript")
    roles = transcript.locator(".turn-role").all_inner_texts()
    assert [r.lower() for r in roles[:3]] == ["system", "user", "assistant"] and len(roles) == 26
    arabic = transcript.locator("li[data-turn='26'] .text")
    assert arabic.evaluate("e => getComputedStyle(e).direction") == "rtl"
    assert transcript.locator("li[data-turn='2'] .text").evaluate("e => getComputedStyle(e).direction") == "ltr"
    box, text = (
        arabic.bounding_box(),
        arabic.evaluate(
            "e => { const r = document.createRange(); r.selectNodeContents(e); const b = r.getClientRects()[0];"
            " return {right: b.right}; }"
        ),
    )
    assert abs(text["right"] - (box["x"] + box["width"])) < 2  # right-to-left text starts at the right edge

    def check(page):
        sizes = transcript.evaluate(SCROLLS)
        wrong = []
        if sizes["scroll"] <= sizes["client"]:
            wrong.append("the transcript does not scroll in its box")
        if sizes["client"] > page.viewport_size["height"] * 0.75:
            wrong.append(f"the transcript box is {sizes['client']} px high")
        return wrong + problems(page)

    at_every_width(page, screenshot, "rate-conversation-pairwise", check)


@pytest.mark.parametrize("width", list(VIEWPORTS))
def test_a_rater_scrolls_the_transcript_and_answers_with_the_keyboard(page, live_server, screenshot, width):
    project, rater = conversation_project(
        "pairwise", [{"system": "a", "text": "Yes, booked."}, {"system": "b", "text": "No rooms left."}]
    )
    page.set_viewport_size(VIEWPORTS[width])
    open_screen(page, live_server, project, rater)
    page.keyboard.press("Shift+Tab")  # from the first question back to the conversation
    assert page.evaluate("document.activeElement.classList.contains('transcript')")
    transcript = page.locator("section.source ol.transcript")
    page.keyboard.press("End")
    # End scrolls the box to its end (smoothly: wait until it is there), showing the last turn.
    page.wait_for_function(
        "(e => e.scrollTop > 0 && e.scrollTop + e.clientHeight >= e.scrollHeight - 2)"
        "(document.querySelector('section.source ol.transcript'))"
    )
    sizes = transcript.evaluate(SCROLLS)
    assert page.locator("li[data-turn='26']").is_visible()
    page.keyboard.press("ArrowUp")  # the arrows scroll it, not the questions
    page.wait_for_function(
        "(top) => document.querySelector('section.source ol.transcript').scrollTop < top", arg=sizes["top"]
    )
    assert page.evaluate("document.activeElement.classList.contains('transcript')")
    assert page_overflow(page) == 0
    screenshot(page, f"rate-conversation-keyboard-{width}")
    page.keyboard.press("Tab")  # back to the question
    page.keyboard.press("b")
    with page.expect_response(lambda r: r.url.endswith("/submit/") and r.request.method == "POST"):
        page.keyboard.press("Enter")
    shown_b = Judgment.objects.get(rater=rater).shown_order[1]
    assert Judgment.objects.get(rater=rater).label == shown_b  # "b" chose the output shown on the right


def test_a_whole_conversation_output_is_a_transcript_too(page, live_server, screenshot):
    whole = [
        {"role": "assistant", "text": "I found three hotels by the sea."},
        {"role": "user", "text": "The cheapest, please."},
        {"role": "assistant", "text": "Booked: Hôtel de la Plage, 3 nights, 240 €."},
    ]
    project, rater = conversation_project("likert", [{"system": "whole", "text": whole}])
    open_screen(page, live_server, project, rater)
    output = page.locator("section.output ol.transcript")
    assert [r.lower() for r in output.locator(".turn-role").all_inner_texts()] == ["assistant", "user", "assistant"]
    at_every_width(page, screenshot, "rate-conversation-likert-whole", problems)


def test_the_leads_item_page_shows_the_conversation_at_every_width(page, live_server, screenshot):
    project, _ = conversation_project("likert", [{"system": "next", "text": "أهلا بك، سأبحث لك عن فندق."}])
    lead = UserFactory(username="conversation-lead")
    MembershipFactory(project=project, user=lead, role="lead")
    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/items/id/chat-0/")
    transcript = page.locator("ol.transcript")
    assert transcript.count() == 1 and transcript.locator("li").count() == 26
    assert transcript.evaluate("e => e.scrollHeight > e.clientHeight")
    at_every_width(page, screenshot, "item-conversation", problems)
