"""The leads' results page: tables, interval plot, heatmap and judges; raters are refused."""

import pytest
from django.test import Client

from annotation.models import Membership, Output
from evaluation.models import MetricScore
from evaluation.services import judge_rating_import
from tests.annotation.factories import MembershipFactory, ProjectFactory
from tests.evaluation.datasets.loaders import lines
from tests.evaluation.factories import pairwise_study, rated_study

pytestmark = pytest.mark.django_db


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_lead_sees_tables_plot_heatmap_and_judges(project, lead):
    rated_study(project, n_items=6, systems=("good", "mid", "bad"), n_raters=2)
    for o in Output.objects.filter(item__project=project):
        MetricScore.objects.create(project=project, output=o, name="m", value=o.id, source="imported")
    judge_rating_import(
        project=project,
        stream=lines(
            {
                "judge": "gpt",
                "item": o.item.external_id,
                "system": o.system,
                "criterion": "fluency",
                "value": 3,
            }
            for o in Output.objects.filter(item__project=project).select_related("item")
        ),
    )
    page = browser(lead).get(f"/projects/{project.id}/results/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<svg" in html and "Means with BCa (bias-corrected and accelerated) bootstrap intervals" in html
    assert "Kendall tau-b (system level)" in html
    assert "Automatic judges beside the humans" in html and "gpt" in html
    assert "Holm" in html
    other = browser(lead).get(f"/projects/{project.id}/results/?level=item&method=pearson")
    assert "Pearson (item level)" in other.content.decode()


def test_pairwise_page_plots_bradley_terry(lead):
    project = ProjectFactory(task_type="pairwise", criteria=["overall"])
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    pairwise_study(project, n_items=15)
    html = browser(lead).get(f"/projects/{project.id}/results/").content.decode()
    assert "Bradley–Terry log-strengths" in html and "Win rate" in html


def test_rater_is_refused(project, rater):
    assert browser(rater).get(f"/projects/{project.id}/results/").status_code == 403


def test_imported_votes_are_ranked_in_their_own_section(lead, tmp_path):
    from evaluation.services.vote_import import vote_import
    from tests.evaluation.vote_files import arena_rows, write_csv

    project = ProjectFactory(task_type="pairwise", criteria=["overall"])
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    vote_import(project=project, path=write_csv(tmp_path / "v.csv", arena_rows()), fmt="csv")
    html = browser(lead).get(f"/projects/{project.id}/results/").content.decode()
    assert "overall: imported votes" in html and "32 votes from 1 imported file" in html
    assert "3 of the ties marked both bad" in html
