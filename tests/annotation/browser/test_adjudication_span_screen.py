"""The adjudicator's screen of an error-span (ESA) item in Chromium: the raters' answers unnamed, their spans pooled
in the error-span widget as proposals; one accepted and one rejected with the mouse, one edited and one added with
the keyboard alone, the score typed; at a laptop's, a tablet's and a phone's width (screenshots, axe-core). The
answer's spans are stored apart from the judgments, which stay as they were."""

import pytest

from annotation.models import AdjudicatedSpan, AdjudicatedValue, ErrorSpan, Judgment, Membership
from annotation.services.adjudication import AdjudicationRule, adjudication_rule_set
from tests.accessibility.test_pages_meet_wcag import problems
from tests.annotation.browser.test_rater_keyboard import PASSWORD
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.browser_support import at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOURCE = "The dog was sitting on the mat."
OUTPUT = "Le chien était assis sur le tapis."
# Each rater's score and spans ([start, end), severity): the second marks only "tapis.", which no span of the
# others overlaps; "chien" is marked twice and pooled once.
RATERS = (
    (40.0, ((3, 8, "major"),)),
    (70.0, ((28, 34, "minor"),)),
    (45.0, ((3, 8, "major"), (9, 14, "minor"))),
)


def _tab_to(page, test: str, most=40):
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate(test):
            return
    raise AssertionError(f"Tab never reached {test}")


def _proposal_button(span: int, role: str) -> str:
    return f".es-item[data-span='{span}'] [data-role={role}]"


def test_the_adjudicator_answers_the_pooled_spans_with_mouse_and_keyboard_at_every_width(page, live_server, screenshot):
    project = ProjectFactory(task_type="esa", criteria=["quality"], name="Dog translations")
    item = ItemFactory(project=project, input=SOURCE, systems=["sys-secret-9"])
    item.outputs.update(text=OUTPUT)
    output = item.outputs.get()
    for k, (score, spans) in enumerate(RATERS):
        rater = UserFactory(username=f"named-rater-{k}")
        MembershipFactory(project=project, user=rater, role=Membership.Role.RATER)
        judgment = JudgmentFactory(item=item, output=output, rater=rater, value=score)
        for start, end, severity in spans:
            ErrorSpan.objects.create(judgment=judgment, start=start, end=end, severity=severity)
    adjudicator = UserFactory(username="adjudicator")
    MembershipFactory(project=project, user=adjudicator, role=Membership.Role.ADJUDICATOR)
    assert adjudication_rule_set(project=project, rule=AdjudicationRule(True, None)) == 1
    raw = list(ErrorSpan.objects.order_by("id").values_list("judgment_id", "start", "end", "severity", "origin"))

    log_in(page, live_server.url, adjudicator.username, PASSWORD, f"/projects/{project.pk}/adjudicate/")
    page.wait_for_selector(".error-spans.es-ready")

    # The raters' answers, unnamed, and their spans pooled as proposals in offset order
    rows = page.get_by_test_id("answer-row")
    assert rows.count() == 3
    assert "minor: “tapis.” · score 70" in page.get_by_test_id("rater-answers").inner_text()
    chips = page.locator(".es-item .es-chip-text").all_inner_texts()
    assert chips == ["“chien”", "“était”", "“tapis.”"]
    html = page.content()
    for secret in ("named-rater", "sys-secret-9"):
        assert secret not in html, secret
    at_every_width(page, screenshot, "adjudication-spans-screen", check=problems)

    # The mouse: "chien" accepted, "tapis." rejected
    page.click(_proposal_button(0, "accept"))
    page.click(_proposal_button(2, "delete"))
    # The keyboard alone: "était" edited to major (Edit, then Tab from its severity to Major, Enter) ...
    page.focus(_proposal_button(1, "accept"))
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.role") == "edit"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.dataset.severity") == "minor"
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    # ... and "Le" added: focus the text, Home, Shift+→ twice, Enter, Enter on the first severity (minor)
    _tab_to(page, "document.activeElement.dataset.text === 'output'")
    page.keyboard.press("Home")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.dataset.severity") == "minor"
    page.keyboard.press("Enter")
    _tab_to(page, "document.activeElement.matches('.es-score input[type=number]')")
    page.keyboard.type("30")
    assert page.get_attribute(".error-spans", "data-complete") == "true"
    at_every_width(page, screenshot, "adjudication-spans-answered", check=problems)
    with page.expect_navigation():
        page.click("#adjudicate-submit")

    assert page.get_by_test_id("adjudication-empty").is_visible()
    [value] = AdjudicatedValue.objects.all()
    assert value.value == 30.0
    assert list(AdjudicatedSpan.objects.order_by("start").values_list("start", "end", "severity", "origin")) == [
        (0, 2, "minor", "added"),
        (3, 8, "major", "accepted"),
        (9, 14, "major", "edited"),
        (28, 34, "minor", "rejected"),
    ]
    assert (
        list(ErrorSpan.objects.order_by("id").values_list("judgment_id", "start", "end", "severity", "origin")) == raw
    )
    assert Judgment.objects.count() == len(RATERS)
