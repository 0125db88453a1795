"""The judges page (alt-test, prediction-powered estimates, confusion with its cells' items) and the
study plan page (curve, recommended design, where the study stands, apply)."""

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from annotation.models import Item
from annotation.services import item_import
from evaluation.services import judge_rating_import
from tests.evaluation.datasets.loaders import lines, new_project
from tests.evaluation.judge_studies import likert_study, pairwise_study

pytestmark = pytest.mark.django_db

# the judges page's reads: session, user, project, criteria and the lead's role; the judges and
# criteria; then the alt-test's, the prediction-powered report's and the confusion's units, four
# queries each (exclusions, human judgments, judge ratings, outputs) after the judge and criteria
# they name; pairwise adds each pair's second outputs. None of them grows with judges or items.
JUDGES_PAGE_QUERIES = {"likert": 28, "pairwise": 29}


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_judges_page_shows_the_tests_and_opens_a_confusion_cell(lead):
    project, _ = likert_study(lead)
    page = browser(lead).get(f"/projects/{project.pk}/judges/", {"epsilon": 0.2})
    html = page.content.decode()
    assert page.status_code == 200
    assert "Alternative annotator test" in html and "gpt-4o-2024-08-06 · 9f2c41d0 · 2025-03-01" in html
    assert re.search(r"(passes|fails)</", html)
    assert html.count("<svg") == 3  # the alt-test plot, the means and the win rates
    assert "bart vs pegasus" in html
    cell = re.search(r'href="(\?judge=gpt[^"]*cell=[^"]*)"', html).group(1).replace("&amp;", "&")
    opened = browser(lead).get(f"/projects/{project.pk}/judges/{cell}").content.decode()
    links = re.findall(rf'href="/projects/{project.pk}/items/(\d+)/"', opened)
    assert links and set(map(int, links)) <= set(Item.objects.filter(project=project).values_list("id", flat=True))


def test_judges_page_runs_the_appendix_variants_and_names_an_unknown_expert(lead):
    project, _ = likert_study(lead, n_rated=12)
    client = browser(lead)
    html = client.get(f"/projects/{project.pk}/judges/", {"test": "wilcoxon", "expert": "r2"}).content.decode()
    assert 'data-testid="expert"' in html and "Wilcoxon signed-rank test in place of the t-test" in html
    assert '<option value="r2" selected>' in html
    page = client.get(f"/projects/{project.pk}/judges/", {"expert": "nobody"})
    assert page.status_code == 200
    assert "expert &#x27;nobody&#x27; is not a rater of this project; tested without an expert" in page.content.decode()


def test_judges_page_without_judges(lead):
    project = new_project(lead, "empty", "likert", [{"name": "fluency", "scale_min": 1, "scale_max": 5}])
    page = browser(lead).get(f"/projects/{project.pk}/judges/")
    assert page.status_code == 200 and "No automatic judge yet" in page.content.decode()


def test_plan_page_draws_the_curve_and_refuses_apply_once_started(lead):
    project, _ = likert_study(lead)
    client = browser(lead)
    page = client.get(f"/projects/{project.pk}/plan/", {"effect": 0.4})
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count("<polyline") == 4  # one line per raters-per-item (1, 2, 3, 5)
    assert 'data-testid="recommended"' in html and "Does the study already answer its question?" in html
    refused = client.post(f"/projects/{project.pk}/plan/?effect=0.4", {"raters_per_item": 2})
    assert refused.status_code == 400 and "once raters have started" in refused.content.decode()


def test_plan_page_applies_the_design_to_a_fresh_project(lead):
    pilot_project, _ = likert_study(lead)
    fresh = new_project(lead, "round two", "likert", [{"name": "fluency", "scale_min": 1, "scale_max": 5}])
    item_import(
        project=fresh,
        stream=lines(
            {"external_id": f"d{i}", "input": "x", "outputs": [{"system": "a", "text": "t"}]} for i in range(3)
        ),
    )
    # planned from the earlier study's judgments, then applied to the new one
    client = browser(lead)
    planned = client.get(f"/projects/{fresh.pk}/plan/", {"pilot": pilot_project.pk, "effect": 0.4}).content.decode()
    assert 'data-testid="recommended"' in planned and "Does the study already answer" not in planned
    page = client.post(f"/projects/{fresh.pk}/plan/?pilot={pilot_project.pk}&effect=0.4", {"raters_per_item": 4})
    assert page.status_code == 200 and "now asks for 4 raters on every item" in page.content.decode()
    assert set(Item.objects.filter(project=fresh).values_list("n_target", flat=True)) == {4}
    assert pilot_project.raters_per_item == 1


def _more_judges(project, records, names):
    """The study's judge ratings again under other judges' names and models (same values)."""
    judge_rating_import(
        project=project,
        stream=lines(r | {"judge": name, "model": f"{name}-model"} for name in names for r in records["judge"]),
    )


@pytest.mark.parametrize("task", ["likert", "pairwise"])
def test_judges_page_reads_a_fixed_number_of_queries(lead, task):
    # Given the page's queries with one judge on a small study
    study = likert_study if task == "likert" else pairwise_study
    small, _ = study(lead, n_items=40, n_rated=32, name="small")
    client = browser(lead)
    with CaptureQueriesContext(connection) as one:
        assert client.get(f"/projects/{small.pk}/judges/").status_code == 200
    # When the study has three times the items and three judges, then the page reads as many
    large, records = study(lead, n_items=120, n_rated=96, name="large")
    _more_judges(large, records, ["claude", "llama"])
    with CaptureQueriesContext(connection) as three:
        page = client.get(f"/projects/{large.pk}/judges/")
    assert page.status_code == 200 and page.content.decode().count("claude-model") >= 1
    assert len(three) == len(one) == JUDGES_PAGE_QUERIES[task], [q["sql"][:120] for q in three.captured_queries]
