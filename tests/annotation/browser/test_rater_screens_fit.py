"""Every rating screen at a laptop's, a tablet's and a phone's width: the page never scrolls sideways, two
Likert outputs × two criteria fit 1280×800 with the submit button, choosing an answer moves nothing on the
page, submitting with questions left names them and goes to the first, axe-core finds nothing serious; and
without JavaScript the plain form still sends the answers."""

import pytest

from annotation.models import Criterion, Judgment
from tests.accessibility.test_pages_meet_wcag import problems
from tests.annotation.browser.test_rater_keyboard import PASSWORD, wait_for_screen
from tests.annotation.factories import ItemFactory
from tests.annotation.rating import add_raters, rating_project
from tests.browser_support import VIEWPORTS, log_in, page_overflow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOURCE = (
    "The city council approved a plan to extend the tram line to the airport on Tuesday, after months of "
    'complaints from residents about traffic. "We listened, and this is the result," said one of the council '
    "members. Construction starts in March and is expected to take three years."
)
SUMMARIES = [
    "The council approved a tram extension to the airport; work starts in March and lasts three years.",
    "A tram line will reach the airport after three years of building, the council decided on Tuesday.",
    "The council voted on trams.",
]
LABELS = ["Unreadable", "Poor", "Fair", "Good", "Perfect"]
SYSTEMS = {"likert": 2, "rankme": 3, "pairwise": 2}

# Every box the rater's form draws: questions, their choices and sliders, the submit button.
BOXES = """() => Array.from(document.querySelectorAll(
    'fieldset.q, fieldset.q label, fieldset.q input, #rate-submit, .card.output')).map(e => {
    const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].map(v => Math.round(v * 10) / 10); })"""


def screen_project(task_type: str):
    project = rating_project(
        task_type=task_type,
        n_items=0,
        criteria=["fluency", "faithfulness"],
        name=f"{task_type} screens",
        instructions="Judge each summary.",
    )
    if task_type == "likert":
        Criterion.objects.filter(project=project).update(labels=LABELS)
    for k in range(2):
        item = ItemFactory(project=project, input=SOURCE, systems=[f"s{n}" for n in range(SYSTEMS[task_type])])
        for output, text in zip(item.outputs.order_by("position"), SUMMARIES, strict=False):
            output.text = text if k == 0 else text.upper()
            output.save()
    (rater,) = add_raters(project)
    return project, rater


def open_screen(page, live_server, project, rater):
    log_in(page, live_server.url, rater.username, PASSWORD, f"/projects/{project.pk}/instructions/")
    page.goto(f"{live_server.url}/projects/{project.pk}/rate/")
    wait_for_screen(page)


def answer_first_question(page, task_type: str):
    if task_type == "rankme":
        page.locator("fieldset.q input[type=range]").first.focus()
        page.keyboard.press("ArrowRight")
    else:
        page.locator("fieldset.q label.point").nth(3 if task_type == "likert" else 0).click()


@pytest.mark.parametrize("width", list(VIEWPORTS))
@pytest.mark.parametrize("task_type", ["likert", "rankme", "pairwise"])
def test_rating_screen_fits_holds_still_and_says_what_is_left(page, live_server, screenshot, task_type, width):
    project, rater = screen_project(task_type)
    page.set_viewport_size(VIEWPORTS[width])
    open_screen(page, live_server, project, rater)
    assert page_overflow(page) == 0
    assert problems(page) == []
    assert page.inner_text("[data-testid=progress]") == "0 of 2 done"
    if task_type == "likert" and width == "desktop":  # 2 outputs × 2 criteria and the button, no scrolling
        assert page.evaluate("document.getElementById('rate-submit').getBoundingClientRect().bottom") <= 800
        assert (
            page.locator(".card.output").first.bounding_box()["y"]
            == page.locator(".card.output").nth(1).bounding_box()["y"]
        )
    screenshot(page, f"rate-{task_type}-{width}")

    # choosing an answer changes colours, never the place or size of anything on the form
    page.evaluate("window.scrollTo(0, 0)")
    before = page.evaluate(BOXES)
    answer_first_question(page, task_type)
    page.evaluate("window.scrollTo(0, 0)")
    assert page.evaluate(BOXES) == before

    # submitting with questions left sends nothing, names them and goes to the first
    page.locator("#rate-submit").scroll_into_view_if_needed()
    page.locator("#rate-submit").click()
    status = page.inner_text("#rate-status")
    open_questions = {"likert": 3, "rankme": 5, "pairwise": 1}[task_type]
    assert status.startswith(f"Not sent: {open_questions} question")
    first_open = "faithfulness"  # the first question was answered
    assert first_open in status.split("open: ")[1].split(",")[0]
    focused = page.evaluate("""() => { const g = document.activeElement.closest('fieldset.q');
        const r = g.getBoundingClientRect(); return [g.dataset.name, r.top >= 0 && r.bottom <= innerHeight]; }""")
    assert focused[0].startswith(first_open) and focused[1] is True
    assert not Judgment.objects.exists()
    assert problems(page) == []
    screenshot(page, f"rate-{task_type}-{width}-incomplete")


@pytest.mark.parametrize("task_type", ["likert", "pairwise"])
def test_without_javascript_the_plain_form_sends_the_answers(browser, live_server, task_type):
    project, rater = screen_project(task_type)
    context = browser.new_context(java_script_enabled=False, viewport=VIEWPORTS["phone"])
    page = context.new_page()
    log_in(page, live_server.url, rater.username, PASSWORD, f"/projects/{project.pk}/instructions/")
    page.goto(f"{live_server.url}/projects/{project.pk}/rate/")
    for fieldset in page.locator("fieldset.q").all():
        fieldset.locator("label.point").first.click()
    with page.expect_navigation():
        page.locator("#rate-submit").click()
    assert page.inner_text("[data-testid=progress]") == "1 of 2 done"
    assert Judgment.objects.filter(rater=rater).count() == (4 if task_type == "likert" else 2)
    context.close()
