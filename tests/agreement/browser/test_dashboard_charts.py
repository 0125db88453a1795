"""The agreement dashboard in Chromium: the trend chart is drawn from stored snapshots."""

from datetime import timedelta

import pytest
from django.utils import timezone

from agreement.services import snapshot_compute_for_project
from annotation.models import Judgment
from tests.annotation.factories import ItemFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.browser_support import inked_pixels, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_trend_chart_and_tables_are_drawn(page, live_server, screenshot):
    # Given three raters who judged 40 items over four weeks, and computed snapshots
    project = ProjectFactory(name="dashboard study", criteria=["fluency", "coherence"])
    lead = UserFactory(username="chart-lead")
    MembershipFactory(project=project, user=lead, role="lead")
    raters = [UserFactory(username=f"chart-rater-{k}") for k in range(3)]
    now = timezone.now()
    for i in range(40):
        item = ItemFactory(project=project, external_id=f"c{i}", subgroup=("news", "sport")[i % 2])
        for k, rater in enumerate(raters):
            for criterion in project.criteria.all():
                Judgment.objects.create(
                    project=project,
                    item=item,
                    output=item.outputs.get(),
                    criterion=criterion,
                    rater=rater,
                    value=float(1 + (i + (k == 2 and i % 3 == 0)) % 5),
                    submitted_at=now - timedelta(weeks=i % 4),
                )
    snapshot_compute_for_project(project_id=project.id)

    # When the lead opens the dashboard
    log_in(page, live_server.url, "chart-lead", "pass-word-1234", f"/projects/{project.id}/agreement/")
    page.wait_for_selector("#trend-chart[data-drawn=true]")

    # Then the chart is drawn and the tables show labels, subgroups and pairs
    drawn = inked_pixels(page, "trend-chart")
    assert drawn > 1000
    body = page.inner_text("main")
    for text in (
        "fluency",
        "coherence",
        "news",
        "sport",
        "chart-rater-2",
        "Which categories raters confuse",
        "Agreement with others",
    ):
        assert text in body
    # and the rater-pair table of the first label is drawn, every pair with its n; choosing another label redraws it
    assert page.get_attribute("#pair-heatmap", "data-drawn") == "fluency"
    assert page.locator("#pair-heatmap tbody tr").count() == 3
    cells = page.locator("#pair-heatmap td").all_inner_texts()
    assert sum(1 for text in cells if "n=40" in text) == 6  # 3 pairs, each shown twice (the table is symmetric)
    page.select_option("#pair-label", "coherence")
    assert page.get_attribute("#pair-heatmap", "data-drawn") == "coherence"
    assert page.locator("#pair-heatmap table[data-label=coherence] th[scope=row]").all_inner_texts() == [
        "chart-rater-0",
        "chart-rater-1",
        "chart-rater-2",
    ]
    screenshot(page, "agreement-dashboard")


def test_a_single_week_is_drawn_as_its_value_with_its_interval(page, live_server, screenshot):
    # Given two raters who judged 40 items in one week
    project = ProjectFactory(name="one-week study", criteria=["fluency"])
    lead = UserFactory(username="week-lead")
    MembershipFactory(project=project, user=lead, role="lead")
    raters = [UserFactory(username=f"week-rater-{k}") for k in range(2)]
    criterion = project.criteria.get()
    for i in range(40):
        item = ItemFactory(project=project, external_id=f"w{i}")
        for k, rater in enumerate(raters):
            Judgment.objects.create(
                project=project,
                item=item,
                output=item.outputs.get(),
                criterion=criterion,
                rater=rater,
                value=float(1 + (i + (k and i % 4 == 0)) % 5),
                submitted_at=timezone.now(),
            )
    snapshot_compute_for_project(project_id=project.id)

    log_in(page, live_server.url, "week-lead", "pass-word-1234", f"/projects/{project.id}/agreement/")
    page.wait_for_selector("#trend-chart[data-drawn=true]")

    # Then the week is a marker with its 95% interval as a bar around it, not a lone dot
    drawn = page.evaluate("""() => Chart.getChart('trend-chart').data.datasets.map(d => [d.type, d.data[0]])""")
    bars = [data for kind, data in drawn if kind == "bar"]
    assert len(bars) == 1 and bars[0][0] < bars[0][1]
    screenshot(page, "agreement-single-week")
