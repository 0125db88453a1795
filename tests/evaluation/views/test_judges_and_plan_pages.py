"""The judges page (alt-test, prediction-powered estimates, confusion with its cells' items) and the
study plan page (curve, recommended design, where the study stands, apply)."""

import re

import pytest
from django.test import Client

from annotation.models import Item
from annotation.services import item_import
from tests.evaluation.datasets.loaders import lines, new_project
from tests.evaluation.judge_studies import likert_study

pytestmark = pytest.mark.django_db


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
