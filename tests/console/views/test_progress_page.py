"""The progress page: leads only, the numbers of progress_summary, a constant query count."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.console.fixtures import known_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return known_project(now=timezone.now())


def test_the_page_shows_counts_chart_data_raters_and_leases(client, world):
    client.force_login(world.lead)
    response = client.get(f"/projects/{world.project.pk}/progress/")
    html = response.content.decode()
    assert response.status_code == 200
    for key, value in (("complete", 4), ("in_progress", 3), ("untouched", 3), ("gold", 2)):
        assert f'<dd data-key="{key}">{value}</dd>' in html
    assert 'id="per-day-chart"' in html and 'id="per-day-data"' in html and "vendor/chartjs/chart.umd.min.js" in html
    assert [d["judgments"] for d in response.context["chart_data"]][-3:] == [2, 4, 5]
    assert "known-r3" in html and 'data-testid="leases"' in html
    assert 'data-status="not_enough_data"' in html or 'data-status="estimated"' in html
    assert "Based on" in html


def test_raters_get_403_and_outsiders_404(client, world, django_user_model):
    client.force_login(world.raters["r1"])
    assert client.get(f"/projects/{world.project.pk}/progress/").status_code == 403
    client.force_login(django_user_model.objects.create_user("outsider", password="x-pass-12345"))
    assert client.get(f"/projects/{world.project.pk}/progress/").status_code == 404


def test_page_queries_do_not_grow_with_the_project(client):
    small, large = known_project(), known_project(extra_untouched=300)
    counts = []
    for world in (small, large):
        client.force_login(world.lead)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/projects/{world.project.pk}/progress/").status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 14


def test_the_project_page_links_the_console_for_leads_only(client, world):
    client.force_login(world.lead)
    html = client.get(f"/projects/{world.project.pk}/").content.decode()
    for path in ("progress/", "items/", "items/upload/"):
        assert f'href="/projects/{world.project.pk}/{path}"' in html
    client.force_login(world.raters["r1"])
    rater_page = client.get(f"/projects/{world.project.pk}/").content.decode()
    assert f"/projects/{world.project.pk}/progress/" not in rater_page
