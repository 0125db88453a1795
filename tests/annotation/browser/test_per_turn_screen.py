"""The per-turn Likert screen in a browser: the criteria sit under each assistant turn of a conversation output, at
a laptop's, a tablet's and a phone's width; a rater answers turn by turn with the keyboard, then with the mouse on
the screen leased ahead, and every judgment carries its turn."""

import pytest

from annotation.models import Judgment
from annotation.services import item_import
from tests.accessibility.test_pages_meet_wcag import problems
from tests.annotation.browser.test_rater_keyboard import PASSWORD, submit_and_wait, wait_for_screen
from tests.annotation.factories import ProjectFactory
from tests.annotation.import_lines import jsonl
from tests.annotation.rating import add_raters
from tests.browser_support import at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _conversation(system: str) -> list[dict]:
    return [
        {"role": "assistant", "text": f"({system}) There is a train at 07:10 from Lyon Part-Dieu, arriving at 11:42."},
        {"role": "user", "text": "How much is a ticket, and can I take my bike?"},
        {"role": "assistant", "text": f"({system}) A second-class ticket is 49 €; bikes travel free if folded."},
    ]


def per_turn_project():
    project = ProjectFactory(
        task_type="likert",
        criteria=["helpful"],
        name="per-turn chat",
        rating_unit="turn",
        randomise_output_order=False,
        instructions="Rate every assistant turn of each conversation.",
    )
    item_import(
        project=project,
        stream=jsonl(
            *(
                {
                    "external_id": f"chat-{k}",
                    "input": [{"role": "user", "text": "Is there an earlier train to Nice?"}],
                    "outputs": [{"system": s, "turns": _conversation(s)} for s in ("a", "b")],
                }
                for k in range(2)
            )
        ),
    )
    (rater,) = add_raters(project)
    return project, rater


def test_the_criteria_sit_under_each_assistant_turn_and_take_keys_and_clicks(page, live_server, screenshot):
    project, rater = per_turn_project()
    log_in(page, live_server.url, rater.username, PASSWORD, f"/projects/{project.pk}/instructions/")
    page.goto(f"{live_server.url}/projects/{project.pk}/rate/")
    wait_for_screen(page)
    outputs = page.locator("section.output")
    assert outputs.count() == 2
    for k in range(2):
        turns = outputs.nth(k).locator("ol.rated-turns > li")
        assert turns.count() == 3
        # a question under each assistant turn (the first and the third), none under the user's
        assert [turns.nth(t).locator("fieldset.q").count() for t in range(3)] == [1, 0, 1]
    at_every_width(page, screenshot, "rate-per-turn", problems)

    # Keyboard: a number answers the question in focus and moves to the next one, turn by turn.
    page.keyboard.press("4")
    page.keyboard.press("Enter")
    assert "3 questions are still open: helpful (output 1, assistant turn 2 (message 3))" in page.inner_text(
        "#rate-status"
    )
    for key in ("5", "3", "2"):
        page.keyboard.press(key)
    submit_and_wait(page)
    first = Judgment.objects.filter(rater=rater)  # the items come in an order drawn per rater: the screen's rows
    assert sorted(first.values_list("output__system", "turn", "value")) == [
        ("a", 0, 4.0),
        ("a", 2, 5.0),
        ("b", 0, 3.0),
        ("b", 2, 2.0),
    ]

    # Mouse, on the screen leased ahead: a click on a point of each turn's question.
    for fieldset in page.locator("fieldset.q").all():
        fieldset.locator("label.point").nth(0).click()
    screenshot(page, "rate-per-turn-clicked")
    with page.expect_response(lambda r: r.url.endswith("/submit/") and r.request.method == "POST"):
        page.keyboard.press("Enter")
    page.wait_for_function("Boolean(document.querySelector('[data-testid=finished]'))")
    second = Judgment.objects.filter(rater=rater).exclude(item_id=first.first().item_id)
    assert sorted(second.values_list("turn", "value")) == [(0, 1.0), (0, 1.0), (2, 1.0), (2, 1.0)]
