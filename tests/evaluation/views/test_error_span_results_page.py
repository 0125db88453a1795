"""The results page and API of error-span projects: WMT's ranking with rank ranges and clusters, MQM's category
shares, ESA's scores, each from the project's own judgments."""

import pytest
from django.test import Client

from tests.evaluation.error_span_studies import error_span_study

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("task_type", ["mqm", "esa"])
def test_api_and_page_rank_the_systems(lead, lead_client, task_type):
    project = error_span_study(lead, task_type)

    body = lead_client.get(f"/api/v1/projects/{project.pk}/results/", {"n_resamples": 200}).json()
    (c,) = body["criteria"]
    assert c["n_judgments"] == 30 * 4 * 2 and c["n_raters"] == 2 and c["error"] is None
    # alpha makes the fewest errors: lowest MQM, highest ESA
    assert [s["system"] for s in c["systems"]][0] == "alpha" and c["systems"][-1]["system"] == "delta"
    assert c["higher_is_better"] is (task_type == "esa")
    for s in c["systems"]:
        assert s["n_items"] == 30 and s["mean_ci"][0] <= s["mean"] <= s["mean_ci"][1]
        assert set(s["subgroup_means"]) == {"chat", "news"}
        assert s["mean"] == pytest.approx(sum(s["subgroup_means"].values()) / 2)
    assert len(c["comparisons"]) == 6 and any(x["significant"] for x in c["comparisons"])
    if task_type == "mqm":
        assert c["weights"][0] == {"category": "Non-translation", "weight": 25.0}
        for s in c["systems"]:
            assert sum(cat["systems"].get(s["system"], 0) for cat in c["categories"]) == pytest.approx(s["micro"])
    else:
        assert c["categories"] == [] and c["weights"] is None

    client = Client()
    client.force_login(lead)
    html = client.get(f"/projects/{project.pk}/results/").content.decode()
    assert 'data-testid="span-systems"' in html and "interval-plot" in html
    assert "WMT&#x27;s significance clusters" in html or "WMT's significance clusters" in html
    assert ('data-testid="span-categories"' in html) is (task_type == "mqm")
    assert ("lower is better" in html) is (task_type == "mqm")


def test_segments_on_request_name_the_items(lead, lead_client):
    project = error_span_study(lead, "mqm", n_items=4)
    c = lead_client.get(f"/api/v1/projects/{project.pk}/results/", {"segments": "true", "n_resamples": 0}).json()
    (c,) = c["criteria"]
    assert len(c["segments"]) == 16 and {s["item"] for s in c["segments"]} == {"seg0", "seg1", "seg2", "seg3"}
    assert all(s["n_raters"] == 2 for s in c["segments"])
    assert c["systems"][0]["mean_ci"] == [None, None]
