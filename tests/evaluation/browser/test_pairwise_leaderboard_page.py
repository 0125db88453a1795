"""In a browser: a lead reads a pairwise study's results with the ranking's firmness (judgments to remove to
swap neighbours, provisional while a system has too few judgments) and turns on style control; at desktop,
tablet and phone widths, nothing scrolling sideways but the tables' own boxes."""

import numpy as np
import pytest

from annotation.models import Membership
from tests.annotation.browser.test_rater_keyboard import PASSWORD
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.browser_support import at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STRENGTH = {"gpt-large": 1.2, "mistral-small": 0.4, "llama-tiny": -0.3, "echo-baseline": -1.3}


def _study(lead):
    """Sixty items over the pairs of four systems; the stronger ones answer at greater length and in lists, and
    llama-tiny was judged only a few times."""
    project = ProjectFactory(
        name="arena study", task_type="pairwise", criteria=["overall"], task_config={"min_judgments_per_system": 25}
    )
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    rater = MembershipFactory(project=project, user=UserFactory(), role=Membership.Role.RATER).user
    criterion = project.criteria.get()
    rng = np.random.default_rng(3)
    pairs = (
        [("gpt-large", "mistral-small")] * 20
        + [("gpt-large", "echo-baseline")] * 14
        + [("mistral-small", "echo-baseline")] * 18
        + [("llama-tiny", "echo-baseline")] * 4
        + [("gpt-large", "llama-tiny")] * 4
    )
    for a, b in pairs:
        item = ItemFactory(project=project, systems=[a, b])
        for output in item.outputs.all():
            words = " ".join(["word"] * int(rng.integers(10, 40) + 15 * STRENGTH[output.system]))
            # lists and bold more often from the stronger systems, never always
            listed = rng.random() < 0.3 + 0.2 * STRENGTH[output.system]
            output.text = f"- **{output.system}** {words}\n- more" if listed else words
            output.save()
        p = 1 / (1 + np.exp(STRENGTH[b] - STRENGTH[a]))
        value = 2.0 if rng.random() < p else 0.0
        JudgmentFactory(
            item=item,
            output=item.outputs.get(position=0),
            criterion=criterion,
            rater=rater,
            value=value,
            label=a if value else b,
        )
    return project


def test_the_lead_reads_how_firm_the_ranking_is(page, live_server, screenshot, django_user_model):
    lead = django_user_model.objects.create_user(username="arena-lead", password=PASSWORD)
    project = _study(lead)

    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/results/")
    board = page.get_by_test_id("leaderboard")
    assert "llama-tiny" in page.get_by_test_id("provisional").inner_text()
    integrity = page.get_by_test_id("integrity")
    assert integrity.locator("tbody tr").count() == 3
    assert "gpt-large" in integrity.locator("tbody tr").first.inner_text()
    assert page.get_by_test_id("style-control").count() == 0
    at_every_width(page, screenshot, "pairwise-leaderboard")

    page.get_by_label("Control the rankings for style").check()
    with page.expect_navigation():
        page.get_by_test_id("style-form").get_by_role("button", name="Show").click()
    assert page.get_by_test_id("style-control").locator("tbody tr").count() == 4
    features = page.get_by_test_id("style-coefficients").inner_text()
    assert "length" in features and "headers" not in features  # no output has a header: left out
    assert board.is_visible()
    at_every_width(page, screenshot, "pairwise-leaderboard-style")
