"""A rater completes each task type with the keyboard only; a lead watches progress move."""

import pytest

from annotation.models import Judgment, Membership
from annotation.services.allocation import allocation_rater_quota_set
from tests.annotation.factories import ItemFactory, MembershipFactory, UserFactory
from tests.annotation.rating import add_raters, rating_project
from tests.browser_support import at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pass-word-1234"  # UserFactory's


def enter_project(page, live_server, rater, project):
    log_in(page, live_server.url, rater.username, PASSWORD, f"/projects/{project.pk}/rate/")
    page.wait_for_url("**/instructions/")  # instructions come first
    page.wait_for_function("document.activeElement && document.activeElement.id === 'start'")
    with page.expect_navigation():
        page.keyboard.press("Enter")  # "Start rating" has the focus
    wait_for_screen(page)


def wait_for_screen(page):
    """The rating screen is up and its script has put the focus on the first question."""
    page.wait_for_function("document.activeElement && document.activeElement.closest('fieldset.q')")


def submit_and_wait(page):
    """Enter sends the screen; the next one replaces it in place (no reload), or the end is shown. Returns
    once the answers are stored (they go out in the background when the next screen was held in the page)."""
    shown = page.get_attribute("html", "data-screen")
    with page.expect_response(lambda r: r.url.endswith("/submit/") and r.request.method == "POST"):
        page.keyboard.press("Enter")
    page.wait_for_function(
        "(shown) => document.querySelector('[data-testid=finished]') || "
        "(document.documentElement.dataset.screen !== shown && document.activeElement"
        " && document.activeElement.closest('fieldset.q'))",
        arg=shown,
    )


def test_likert_with_number_keys_arrows_and_enter(page, live_server, screenshot):
    project = rating_project(
        n_items=2,
        criteria=["fluency", "coherence"],
        systems=["s1", "s2"],
        instructions="Rate fluency and coherence of each summary.",
    )
    (rater,) = add_raters(project)
    enter_project(page, live_server, rater, project)

    # Enter on an incomplete screen submits nothing and says what is missing
    page.keyboard.press("4")
    page.keyboard.press("Enter")
    assert page.inner_text("#rate-status") == (
        "Not sent: 3 questions are still open: coherence (output 1), fluency (output 2), coherence (output 2)."
    )
    assert not Judgment.objects.exists()
    screenshot(page, "likert-incomplete")

    # ↑ goes back to the first question, a number key changes it; the rest by number keys
    page.keyboard.press("ArrowUp")
    page.keyboard.press("5")
    for key in ("3", "2", "1"):
        page.keyboard.press(key)
    screenshot(page, "likert-complete")
    submit_and_wait(page)

    for key in ("1", "2", "3", "4"):
        page.keyboard.press(key)
    submit_and_wait(page)

    page.wait_for_selector("[data-testid=finished]")
    screenshot(page, "likert-finished")
    assert Judgment.objects.filter(rater=rater).count() == 8
    assert Judgment.objects.filter(rater=rater, value=5).count() == 1
    assert all(j.duration_ms is not None for j in Judgment.objects.all())


def test_pairwise_with_a_t_b_and_1_0_2(page, live_server, screenshot):
    project = rating_project(task_type="pairwise", n_items=2, criteria=["overall", "safety"], systems=["bart", "t5"])
    (rater,) = add_raters(project)
    enter_project(page, live_server, rater, project)

    assert "bart" not in page.inner_text(".rate-form").replace("bart on", "")
    page.keyboard.press("a")
    page.keyboard.press("t")
    screenshot(page, "pairwise-screen")
    submit_and_wait(page)
    page.keyboard.press("2")
    page.keyboard.press("0")
    submit_and_wait(page)

    page.wait_for_selector("[data-testid=finished]")
    labels = sorted(Judgment.objects.filter(rater=rater).values_list("label", flat=True))
    assert labels.count("tie") == 2 and len(labels) == 4


def test_rankme_sliders_start_unset_and_take_arrows_or_typed_numbers(page, live_server, screenshot):
    project = rating_project(task_type="rankme", n_items=1, criteria=["quality"], systems=["a", "b", "c"])
    (rater,) = add_raters(project)
    enter_project(page, live_server, rater, project)

    page.keyboard.press("Enter")  # nothing set yet: refused
    assert "3 questions are still open" in page.inner_text("#rate-status")
    screenshot(page, "rankme-unset")

    # an unset slider has no value to start from: the first step puts it at the end it moves away from
    page.keyboard.press("ArrowRight")  # first slider: unset → 0
    page.keyboard.press("ArrowRight")  # 0 → 1
    page.keyboard.press("Tab")  # its number field
    page.keyboard.press("Tab")  # second slider
    page.keyboard.press("ArrowLeft")  # unset → 100
    page.keyboard.press("ArrowLeft")  # 100 → 99
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # third slider
    page.keyboard.press("Tab")  # its number field: type the value
    page.keyboard.type("87.5")
    screenshot(page, "rankme-set")
    submit_and_wait(page)

    page.wait_for_selector("[data-testid=finished]")
    assert sorted(Judgment.objects.values_list("value", flat=True)) == [1.0, 87.5, 99.0]


def test_rankme_with_a_modulus_scores_against_the_reference_from_the_keyboard(page, live_server, screenshot):
    project = rating_project(task_type="rankme", n_items=0, criteria=["quality"], rankme_modulus=100)
    ItemFactory(project=project, systems=["a", "b", "c"], references=["The reference summary."])
    (rater,) = add_raters(project)
    enter_project(page, live_server, rater, project)

    # the reference comes first with its fixed score, and takes no input
    assert page.inner_text("[data-testid=modulus-score]") == "score 100"
    assert "The reference summary." in page.inner_text("[data-testid=modulus]")
    assert page.locator("[data-testid=modulus] input").count() == 0

    page.keyboard.press("ArrowRight")  # log slider: 100 → 10^2.01, shown as 102
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # second slider
    page.keyboard.press("PageDown")  # a tenth of the four decades: 100 → 10^1.6, shown as 39.8
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # third slider
    page.keyboard.press("Tab")  # its number field
    page.keyboard.type("0")  # not a magnitude: the question stays open
    assert "1 question left" in page.inner_text("#rate-status")
    page.keyboard.press("Enter")  # refused in the page; the focus goes back to the open question
    assert "output 3" in page.inner_text("#rate-status")
    assert not Judgment.objects.exists()
    page.keyboard.press("Tab")  # from its slider to its number field again
    page.keyboard.press("Control+A")
    page.keyboard.type("25000")  # beyond the slider's end (100 × the modulus): typed numbers have no bound
    assert "Every question is answered" in page.inner_text("#rate-status")
    assert page.eval_on_selector_all("fieldset.q input[type=number]", "els => els.map(e => e.value)") == [
        "102",
        "39.8",
        "25000",
    ]
    screenshot(page, "rankme-modulus-set")
    submit_and_wait(page)

    page.wait_for_selector("[data-testid=finished]")
    screenshot(page, "rankme-modulus-finished")
    # raw magnitudes, one per output; the reference's fixed score is no judgment
    assert sorted(Judgment.objects.filter(rater=rater).values_list("value", flat=True)) == [39.8, 102.0, 25000.0]


def test_a_lead_sees_progress_move(browser, page, live_server, screenshot):
    project = rating_project(n_items=2)
    lead = UserFactory(username="lead-watch")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    (rater,) = add_raters(project)
    lead_context = browser.new_context()
    lead_page = lead_context.new_page()
    log_in(lead_page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/")

    def judged_by_rater():
        lead_page.reload()
        row = lead_page.locator("[data-testid=raters] tr", has_text=rater.username)
        return row.locator("td").nth(1).inner_text()

    assert judged_by_rater() == "0"
    enter_project(page, live_server, rater, project)
    page.keyboard.press("3")
    submit_and_wait(page)

    assert judged_by_rater() == "1"
    screenshot(lead_page, "lead-progress")
    lead_context.close()


def test_item_text_is_shown_as_text(page, live_server):
    project = rating_project(n_items=0)
    ItemFactory(project=project, input="<img src=x onerror=\"document.title='pwned'\">", systems=["s"])
    (rater,) = add_raters(project)
    enter_project(page, live_server, rater, project)

    assert "pwned" not in page.title()
    assert "<img src=x" in page.inner_text("[data-testid=input]")


def test_a_rater_at_their_quota_sees_it_on_the_finished_screen_at_every_width(page, live_server, screenshot):
    project = rating_project(n_items=3, criteria=["fluency"], systems=["s1"])
    (rater,) = add_raters(project)
    allocation_rater_quota_set(project=project, rater=rater, by=UserFactory(), max_screens=1)
    enter_project(page, live_server, rater, project)

    page.keyboard.press("4")
    submit_and_wait(page)

    page.wait_for_selector("[data-testid=finished]")
    assert page.get_by_test_id("quota-reached").inner_text() == (
        "You have reached your maximum of 1 screen in this project, so there is no more work for you here. "
        "You judged 1 screen."
    )
    at_every_width(page, screenshot, "rater-finished-at-quota")
