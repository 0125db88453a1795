"""In a browser: a lead reads an MQM study's results page (the ranked table with rank ranges and clusters, the
interval plot on cluster bands, the category shares, the pairwise tests) at desktop, tablet and phone widths,
nothing scrolling sideways but the wide tables' own boxes."""

import pytest

from tests.annotation.browser.test_rater_keyboard import PASSWORD
from tests.browser_support import at_every_width, log_in
from tests.evaluation.error_span_studies import error_span_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_lead_reads_the_mqm_ranking(page, live_server, screenshot, django_user_model):
    lead = django_user_model.objects.create_user(username="mqm-lead", password=PASSWORD)
    project = error_span_study(lead, "mqm")

    log_in(page, live_server.url, lead.username, PASSWORD, f"/projects/{project.pk}/results/")
    systems = page.get_by_test_id("span-systems")
    assert systems.locator("tbody tr").count() == 4
    assert systems.locator("tbody tr").first.locator("th").inner_text() == "alpha"
    assert page.locator("svg.interval-plot circle.dot").count() == 4
    assert page.locator("svg.interval-plot rect.band").count() >= 2
    assert page.get_by_test_id("span-categories").locator("tbody tr").count() == 4
    assert "lower is better" in page.get_by_test_id("span-scoring").inner_text()
    at_every_width(page, screenshot, "results-mqm")
