"""The best–worst screen: a rater picks the best and the worst of a tuple by mouse (or touch) and by keys only,
an output picked in one group leaves the other, both picks are required; the screen fits a desktop, a tablet and
a phone with no serious WCAG 2.1 violation, and works without JavaScript."""

import io
import json

import pytest

from annotation.models import Judgment, Membership
from annotation.services.item_import import item_import
from annotation.services.project import project_create
from annotation.task_types import REGISTRY
from tests.accessibility.test_pages_meet_wcag import problems
from tests.annotation.browser.test_rater_keyboard import enter_project, submit_and_wait
from tests.annotation.factories import UserFactory
from tests.browser_support import at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BWS = next(slug for slug, t in REGISTRY.items() if t.results.best_worst)
TEXTS = [
    "The service was quick and the staff were lovely.",
    "It was fine, nothing special, I suppose.",
    "Awful: cold food, rude waiter, and a forty-minute wait for the bill.",
    "Best meal I have had this year; I will be back next week with friends.",
    "The room was noisy but the dessert made up for it.",
]


def bws_project(n_tuples: int = 2):
    """Five outputs to scale: the design draws ``n_tuples`` tuples of four."""
    lead = UserFactory()
    project = project_create(
        created_by=lead,
        name="which review is most positive",
        task_type=BWS,
        criteria=[{"name": "positivity", "help_text": "How positive is the review?"}],
        instructions="Pick the most and the least positive review.",
        task_config={"seed": 4, "tuples_per_output": n_tuples / len(TEXTS)},
    )
    lines = [
        {
            "external_id": f"review{i}",
            "input": "Which review is the most positive, and which the least?",
            "outputs": [{"system": f"review{i}", "text": text}],
        }
        for i, text in enumerate(TEXTS)
    ]
    item_import(project=project, stream=io.BytesIO("\n".join(map(json.dumps, lines)).encode()))
    rater = UserFactory()
    Membership.objects.create(project=project, user=rater, role=Membership.Role.RATER)
    return project, rater


def picks(rater) -> list[tuple[str, str]]:
    """(best, worst) of each screen the rater answered, by the systems' numbers as shown."""
    out = []
    for assignment in rater.assignments.order_by("id"):
        coded = {j.output.system: j.label for j in Judgment.objects.filter(assignment=assignment)}
        shown = assignment.item.outputs.order_by("position").values_list("system", flat=True)
        shown = [list(shown)[p] for p in assignment.shown_order]
        out.append(
            tuple(shown.index(next(s for s, lab in coded.items() if lab == pick)) + 1 for pick in ("best", "worst"))
        )
    return out


def test_best_and_worst_by_mouse_at_every_width(page, live_server, screenshot):
    project, rater = bws_project()
    enter_project(page, live_server, rater, project)
    assert page.locator("[data-testid=output]").count() == 4
    assert not any(f"review{i}" in page.inner_text("main") for i in range(5))  # no system names shown
    at_every_width(page, screenshot, "rate-bws-unanswered", check=problems)

    best = page.locator("fieldset[data-pick=best] label.point")
    worst = page.locator("fieldset[data-pick=worst] label.point")
    best.nth(1).click()
    page.locator("#rate-submit").click()  # the worst is missing: nothing is sent
    assert "positivity: worst" in page.inner_text("#rate-status")
    assert not Judgment.objects.exists()

    worst.nth(1).click()  # the output already picked best: it leaves the best group
    assert page.locator("fieldset[data-pick=best] input:checked").count() == 0
    assert page.inner_text("#rate-status") == "1 question left."
    best.nth(3).click()
    at_every_width(page, screenshot, "rate-bws-answered", check=problems)
    with page.expect_response(lambda r: r.url.endswith("/submit/") and r.request.method == "POST"):
        page.locator("#rate-submit").click()
    page.wait_for_function("document.querySelectorAll('fieldset[data-pick] input:checked').length === 0")

    # the second screen, leased ahead and swapped in, takes the picks the same way
    page.locator("fieldset[data-pick=best] label.point").nth(0).click()
    page.locator("fieldset[data-pick=worst] label.point").nth(2).click()
    submit_and_wait(page)
    page.wait_for_selector("[data-testid=finished]")
    assert picks(rater) == [(4, 2), (1, 3)]
    assert Judgment.objects.filter(rater=rater).count() == 8  # every output of both tuples coded


def test_best_and_worst_with_the_keyboard_only(page, live_server, screenshot):
    project, rater = bws_project()
    enter_project(page, live_server, rater, project)

    page.keyboard.press("3")  # the best group has the focus: output 3 is best, the focus moves to worst
    page.keyboard.press("3")  # the same output as worst: it leaves best, which is open again and takes the focus
    assert page.locator("fieldset[data-pick=best] input:checked").count() == 0
    page.keyboard.press("Enter")  # refused in the page, saying what is open
    assert "positivity: best" in page.inner_text("#rate-status")
    page.keyboard.press("2")
    screenshot(page, "rate-bws-keyboard")
    submit_and_wait(page)

    page.keyboard.press("ArrowDown")  # to the worst group first
    page.keyboard.press("4")
    page.keyboard.press("1")  # the focus came back up to best
    submit_and_wait(page)
    page.wait_for_selector("[data-testid=finished]")
    assert picks(rater) == [(2, 3), (1, 4)]


def test_the_screen_works_without_javascript(browser, live_server, screenshot):
    project, rater = bws_project(n_tuples=1)
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    log_in(page, live_server.url, rater.username, "pass-word-1234", f"/projects/{project.pk}/rate/")
    page.wait_for_url("**/instructions/")
    with page.expect_navigation():
        page.click("#start")
    page.locator("fieldset[data-pick=best] label.point").nth(0).click()
    page.locator("fieldset[data-pick=worst] label.point").nth(0).click()
    with page.expect_navigation():
        page.click("#rate-submit")
    # the same output best and worst: refused
    assert "output 1 (as shown) is picked as both 'best' and 'worst'" in page.inner_text("#errors")
    assert not Judgment.objects.exists()
    screenshot(page, "rate-bws-no-script-refused")
    page.locator("fieldset[data-pick=best] label.point").nth(0).click()
    page.locator("fieldset[data-pick=worst] label.point").nth(3).click()
    with page.expect_navigation():
        page.click("#rate-submit")
    assert picks(rater) == [(1, 4)]
    context.close()
