"""POST /api/v1/projects/{id}/exports/ → job → GET /api/v1/exports/{id}/download/: who may, what comes back."""

import io
import zipfile

import pytest

from annotation.models import Membership
from tests.annotation.factories import MembershipFactory, UserFactory
from tests.conftest import client_for
from tests.evaluation.export.studies import likert_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(lead, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return likert_study(lead, n_items=6)


def start(client, project, capture, **body):
    with capture(execute=True):
        return client.post(f"/api/v1/projects/{project.id}/exports/", body, format="json")


def test_lead_starts_an_export_and_downloads_the_zip_from_the_jobs_result(
    study, lead_client, django_capture_on_commit_callbacks
):
    response = start(
        lead_client,
        study,
        django_capture_on_commit_callbacks,
        formats=["jsonl", "parquet"],
        split="subgroup",
        license="cc-by-4.0",
    )
    assert response.status_code == 202
    job = lead_client.get(f"/api/v1/jobs/{response.json()['job_id']}/").json()
    assert job["state"] == "success" and job["progress"] == 1.0
    assert job["result"]["download"] == f"/api/v1/exports/{response.json()['export_id']}/download/"

    download = lead_client.get(job["result"]["download"])
    assert download.status_code == 200
    assert download["Content-Type"] == "application/zip"
    assert "attachment" in download["Content-Disposition"]
    data = b"".join(download.streaming_content)
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert "README.md" in names and "data/judgments/news.parquet" in names
    assert len(data) == job["result"]["size_bytes"]

    listed = lead_client.get(f"/api/v1/projects/{study.id}/exports/").json()
    assert listed["count"] == 1 and listed["results"][0]["state"] == "ready"
    assert listed["results"][0]["download"] == job["result"]["download"]
    assert listed["results"][0]["options"]["license"] == "cc-by-4.0"


def test_download_answers_whatever_the_client_accepts(study, lead_client, django_capture_on_commit_callbacks):
    export_id = start(lead_client, study, django_capture_on_commit_callbacks, formats=["csv"]).json()["export_id"]
    for accept in ("application/zip", "application/json", "*/*"):
        response = lead_client.get(f"/api/v1/exports/{export_id}/download/", HTTP_ACCEPT=accept)
        assert response.status_code == 200 and response["Content-Type"] == "application/zip"


def test_raters_get_403_and_outsiders_404(study, lead_client, django_capture_on_commit_callbacks):
    rater_client = client_for(MembershipFactory(project=study, role=Membership.Role.RATER).user)
    stranger = client_for(UserFactory(username="stranger"))
    assert start(rater_client, study, django_capture_on_commit_callbacks).status_code == 403
    assert start(stranger, study, django_capture_on_commit_callbacks).status_code == 404

    export_id = start(lead_client, study, django_capture_on_commit_callbacks, formats=["csv"]).json()["export_id"]
    assert rater_client.get(f"/api/v1/exports/{export_id}/download/").status_code == 403
    assert stranger.get(f"/api/v1/exports/{export_id}/download/").status_code == 404
    assert stranger.get("/api/v1/exports/999999/download/").status_code == 404


def test_download_before_the_job_is_done_is_409(study, lead_client):
    # without running the on-commit callbacks, the job never ran
    export_id = lead_client.post(f"/api/v1/projects/{study.id}/exports/", {}, format="json").json()["export_id"]
    response = lead_client.get(f"/api/v1/exports/{export_id}/download/")
    assert response.status_code == 409 and "pending" in response.json()["detail"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"formats": ["xml"]}, "formats"),
        ({"formats": []}, "formats"),
        ({"split": "week"}, "split"),
        ({"include_usernames": "perhaps"}, "include_usernames"),
        ({"license": "CC BY"}, "license"),
        ({"languages": ["English language"]}, "languages"),
        ({"format": ["csv"]}, "format"),
    ],
)
def test_bad_options_get_400_naming_the_option(study, lead_client, body, field):
    response = lead_client.post(f"/api/v1/projects/{study.id}/exports/", body, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert not study.exports.exists()


def test_the_export_endpoints_are_in_the_schema(lead_client, staff):
    schema = client_for(staff).get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert "/api/v1/projects/{id}/exports/" in schema["paths"]
    assert "/api/v1/exports/{id}/download/" in schema["paths"]
