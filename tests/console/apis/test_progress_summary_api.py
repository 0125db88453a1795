"""GET /api/v1/projects/{id}/progress/summary/: the progress page's numbers as JSON, for leads only, in the
OpenAPI schema."""

import pytest
from django.utils import timezone

from tests.console.fixtures import known_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return known_project(now=timezone.now())


def test_the_summary_holds_the_known_numbers(client, world):
    client.force_login(world.lead)
    data = client.get(f"/api/v1/projects/{world.project.pk}/progress/summary/").json()
    assert {k: data["items"][k] for k in ("complete", "in_progress", "untouched", "gold", "slots_filled")} == {
        "complete": 4,
        "in_progress": 3,
        "untouched": 3,
        "gold": 2,
        "slots_filled": 10,
    }
    assert data["median_seconds_per_item"] == 50 and data["leases"]["n_active"] == 1
    (holder,) = data["leases"]["raters"]
    # r3's lease was served 30 minutes before the fixture's "now", moments before the request.
    assert holder["rater"] == "known-r3" and holder["n"] == 1 and 1800 <= holder["oldest_age_seconds"] < 1900
    assert set(data["eta"]) == {"status", "seconds", "finish_at", "slots_per_hour", "n_recent", "based_on"}
    assert {"day", "judgments", "screens"} == set(data["per_day"][0])


def test_the_summary_api_is_in_the_schema(client, world):
    schema = client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/v1/projects/{id}/progress/summary/"]["get"]
    assert "leases held now" in operation["description"]


def test_raters_get_403_and_outsiders_404(client, world, django_user_model):
    client.force_login(world.raters["r1"])
    assert client.get(f"/api/v1/projects/{world.project.pk}/progress/summary/").status_code == 403
    client.force_login(django_user_model.objects.create_user("outsider", password="x-pass-12345"))
    assert client.get(f"/api/v1/projects/{world.project.pk}/progress/summary/").status_code == 404
