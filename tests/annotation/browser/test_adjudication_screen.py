"""The adjudicator's screen in Chromium: the queued item with the raters' answers unnamed, at a laptop's, a
tablet's and a phone's width (screenshots), answered with the mouse and stored apart from the judgments;
then the queue is empty. The lead's adjudication page counts it."""

import pytest

from annotation.models import AdjudicatedValue, Criterion, Judgment, Membership
from annotation.services.adjudication import AdjudicationRule, adjudication_rule_set
from tests.accessibility.test_pages_meet_wcag import problems
from tests.annotation.browser.test_rater_keyboard import PASSWORD
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, UserFactory
from tests.annotation.rating import rating_project
from tests.browser_support import at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOURCE = (
    "The city council approved a plan to extend the tram line to the airport on Tuesday, after months of "
    "complaints from residents about traffic. Construction starts in March and takes three years."
)
SUMMARIES = [
    "The council approved a tram extension to the airport; work starts in March.",
    "The council voted on trams.",
]


def test_the_adjudicator_answers_a_disagreeing_item_blind_at_every_width(page, live_server, screenshot):
    project = rating_project(n_items=0, criteria=["fluency", "faithfulness"], name="Tram summaries")
    Criterion.objects.filter(project=project).update(labels=["Unreadable", "Poor", "Fair", "Good", "Perfect"])
    item = ItemFactory(project=project, input=SOURCE, systems=["sys-alpha-9", "sys-beta-9"])
    for output, text in zip(item.outputs.order_by("position"), SUMMARIES, strict=True):
        output.text = text
        output.save()
    raters = [UserFactory(username=f"named-rater-{k}") for k in range(3)]
    for rater, scores in zip(raters, ((5, 1), (2, 1), (4, 2)), strict=True):
        MembershipFactory(project=project, user=rater, role=Membership.Role.RATER)
        for criterion in project.criteria.all():
            for output, score in zip(item.outputs.order_by("position"), scores, strict=True):
                JudgmentFactory(item=item, output=output, criterion=criterion, rater=rater, value=score)
    adjudicator = UserFactory(username="adjudicator")
    MembershipFactory(project=project, user=adjudicator, role=Membership.Role.ADJUDICATOR)
    adjudication_rule_set(project=project, rule=AdjudicationRule(True, 1.0))
    n_judgments = Judgment.objects.count()

    log_in(page, live_server.url, adjudicator.username, PASSWORD, f"/projects/{project.pk}/adjudicate/")

    table = page.get_by_test_id("rater-answers")
    assert table.locator("tbody tr").count() == 3
    assert "Answer 1" in table.inner_text() and "5 Perfect" in table.inner_text()
    html = page.content()
    for secret in ("named-rater", "sys-alpha-9", "sys-beta-9"):
        assert secret not in html, secret
    at_every_width(page, screenshot, "adjudication-screen", check=problems)

    for name in ("fluency", "faithfulness"):
        criterion_id = project.criteria.get(name=name).pk
        page.locator(f'input[name="v-{criterion_id}-0"][value="4"]').check()
        page.locator(f'input[name="v-{criterion_id}-1"][value="1"]').check()
    with page.expect_navigation():
        page.click("#adjudicate-submit")

    assert page.get_by_test_id("adjudication-empty").is_visible()
    screenshot(page, "adjudication-empty")
    assert sorted(AdjudicatedValue.objects.values_list("output__system", "value")) == [
        ("sys-alpha-9", 4.0),
        ("sys-alpha-9", 4.0),
        ("sys-beta-9", 1.0),
        ("sys-beta-9", 1.0),
    ]
    assert Judgment.objects.count() == n_judgments

    lead = UserFactory(username="lead-of-trams")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    page.context.clear_cookies()
    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/adjudication/")
    assert page.get_by_test_id("n-adjudicated").inner_text() == "1"
    at_every_width(page, screenshot, "adjudication-lead", check=problems)
