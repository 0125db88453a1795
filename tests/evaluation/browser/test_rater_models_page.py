"""In a browser: a lead follows the results page's link to the rater models, starts their computation, reads
each rater's competence, bias and noise, opens the confusion matrices and the units the model overrules the vote
on; at desktop, tablet and phone widths, nothing scrolling sideways but the wide tables' own boxes."""

import numpy as np
import pytest

from annotation.models import Membership
from tests.annotation.browser.test_rater_keyboard import PASSWORD
from tests.annotation.factories import ItemFactory, JudgmentFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.browser_support import at_every_width, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _study(lead):
    """Thirty items on a 1–5 scale, four raters each: two careful, one a point high, one at random."""
    project = ProjectFactory(name="disagreement study", criteria=["fluency"])
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    raters = [MembershipFactory(project=project, user=UserFactory(), role=Membership.Role.RATER).user for _ in range(4)]
    criterion = project.criteria.get()
    rng = np.random.default_rng(0)
    for _ in range(30):
        item = ItemFactory(project=project)
        truth = int(rng.integers(1, 6))
        answers = (truth, truth, min(truth + 1, 5), int(rng.integers(1, 6)))
        for rater, value in zip(raters, answers, strict=True):
            JudgmentFactory(item=item, output=item.outputs.get(), criterion=criterion, rater=rater, value=value)
    return project


def test_the_lead_reads_who_disagrees(page, live_server, screenshot, django_user_model):
    lead = django_user_model.objects.create_user(username="models-lead", password=PASSWORD)
    project = _study(lead)

    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/results/")
    with page.expect_navigation():
        page.get_by_test_id("rater-models-link").click()
    assert page.get_by_role("heading", name="Who disagrees, and how: disagreement study").is_visible()
    # Nothing computed yet: the lead starts the job (eager Celery here) and the page reads its stored result
    assert "Not computed yet" in page.get_by_test_id("rater-models-state").inner_text()
    with page.expect_navigation():
        page.get_by_test_id("rater-models-recompute").click()
    assert "Up to date with the judgments" in page.get_by_test_id("rater-models-state").inner_text()
    raters = page.get_by_test_id("raters-fluency")
    assert raters.locator("tbody tr").count() == 4
    assert "rater-004" in raters.inner_text()
    page.get_by_text("Each rater's confusion matrix").click()
    assert page.locator("table.confusion").first.is_visible()
    assert page.locator("table.confusion").count() == 4
    assert page.get_by_test_id("moved-fluency").locator("tbody tr").count() == 20
    at_every_width(page, screenshot, "rater-models")
