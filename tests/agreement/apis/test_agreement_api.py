"""Agreement endpoints: recompute → job → snapshots, filters, and who may call them."""

import pytest

from tests.agreement.pandalm import load_pandalm
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def pandalm(datasets):
    project, _ = load_pandalm(datasets)
    lead = UserFactory(username="api-lead")
    MembershipFactory(project=project, user=lead, role="lead")
    return project, client_for(lead)


@pytest.fixture
def recompute(django_capture_on_commit_callbacks):
    """POST a recompute and run the job it sends after commit (the test transaction never commits)."""

    def post(client, project):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(f"/api/v1/projects/{project.id}/agreement/recompute/")

    return post


def test_recompute_runs_a_job_whose_state_and_result_can_be_polled(pandalm, recompute):
    project, client = pandalm
    started = recompute(client, project)
    assert started.status_code == 202
    job = client.get(f"/api/v1/jobs/{started.json()['job_id']}/").json()
    assert (job["state"], job["progress"], job["kind"]) == ("success", 1.0, "agreement_recompute")
    assert job["result"]["judgments"] == 2997


def test_snapshots_are_filterable(pandalm, recompute):
    project, client = pandalm
    recompute(client, project)
    url = f"/api/v1/projects/{project.id}/agreement/"
    pair = client.get(url, {"pair": "annotator1,annotator2", "window": "cumulative"}).json()["results"]
    assert [(s["rater_a"], s["rater_b"], s["statistic"], round(s["value"], 4)) for s in pair] == [
        ("annotator1", "annotator2", "cohen_kappa", 0.852)
    ]
    by_statistic = client.get(url, {"statistic": "fleiss_kappa", "scope": "criterion"}).json()["results"]
    assert {s["criterion"] for s in by_statistic} == {"overall"} and len(by_statistic) == 2  # week + cumulative
    subgroup = client.get(url, {"subgroup": "Grammarly", "criterion": "overall"}).json()["results"]
    assert subgroup and all(s["subgroup"] == "Grammarly" for s in subgroup)
    assert client.get(url, {"week": "1999-01-04"}).json()["count"] == 0
    bad = client.get(url, {"pair": "only-one"})
    assert bad.status_code == 400 and "two rater names" in str(bad.json())
    assert client.get(url, {"week": "not a date"}).status_code == 400


def test_agreement_is_for_leads_only(pandalm):
    project, _ = pandalm
    rater = UserFactory(username="a-rater")
    MembershipFactory(project=project, user=rater, role="rater")
    for method, path in (("get", "agreement/"), ("post", "agreement/recompute/")):
        assert getattr(client_for(rater), method)(f"/api/v1/projects/{project.id}/{path}").status_code == 403
        outsider = client_for(UserFactory(username=f"outsider-{method}"))
        assert getattr(outsider, method)(f"/api/v1/projects/{project.id}/{path}").status_code == 404


def test_jobs_are_visible_to_their_project_leads_only(pandalm, recompute):
    project, client = pandalm
    job_id = recompute(client, project).json()["job_id"]
    assert client_for(UserFactory(username="stranger")).get(f"/api/v1/jobs/{job_id}/").status_code == 404
    rater = UserFactory(username="rater-j")
    MembershipFactory(project=project, user=rater, role="rater")
    assert client_for(rater).get(f"/api/v1/jobs/{job_id}/").status_code == 404


def test_each_interval_names_the_method_that_produced_it(pandalm, recompute):
    # issue 24, point 6: ordinal alpha (the main coefficient) by BCa, kappa-type rows analytic
    project, client = pandalm
    recompute(client, project)
    url = f"/api/v1/projects/{project.id}/agreement/"
    rows = client.get(url, {"scope": "criterion", "window": "cumulative", "page_size": 100}).json()["results"]
    methods = {s["statistic"]: s["ci_method"] for s in rows}
    assert methods["krippendorff_alpha_ordinal"] == "bca"
    assert methods["fleiss_kappa"] == "analytic"
    assert methods["krippendorff_alpha_nominal"] == ""  # stored without an interval
    pair = client.get(url, {"pair": "annotator1,annotator2", "window": "cumulative"}).json()["results"]
    assert [s["ci_method"] for s in pair] == ["analytic"]
