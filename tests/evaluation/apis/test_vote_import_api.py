"""POST /api/v1/projects/{id}/votes/import/ (a job) and manage.py import_votes: who may import, what the job
reports, what the results and a bad file leave."""

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.core.management import CommandError, call_command

from annotation.models import Membership
from core.models import Job
from evaluation.models import Vote, VoteImport
from tests.annotation.factories import MembershipFactory, ProjectFactory, UserFactory
from tests.conftest import client_for
from tests.evaluation.vote_files import arena_rows, write_csv

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def compared(lead):
    project = ProjectFactory(task_type="pairwise", criteria=["overall"], name="arena")
    MembershipFactory(project=project, user=lead, role=Membership.Role.LEAD)
    return project


def url(project, query=""):
    return f"/api/v1/projects/{project.id}/votes/import/{query}"


def csv_upload(tmp_path, rows=None):
    path = write_csv(tmp_path / "votes.csv", rows or arena_rows())
    return {"file": io.BytesIO(path.read_bytes())}, path


def post_file(client, project, body, capture, query=""):
    body["file"].name = "votes.csv"
    with capture(execute=True):
        return client.post(url(project, query), body, format="multipart")


def test_lead_imports_a_file_as_a_job_and_reads_the_ranking(
    compared, lead_client, tmp_path, media, django_capture_on_commit_callbacks
):
    body, _ = csv_upload(tmp_path)
    response = post_file(lead_client, compared, body, django_capture_on_commit_callbacks)
    assert response.status_code == 202
    job = lead_client.get(f"/api/v1/jobs/{response.json()['job_id']}/").json()
    assert (job["kind"], job["state"], job["progress"]) == ("vote_import", "success", 1.0)
    assert job["result"] == {"imported": 32, "layout": "arena", "systems": 3, "import": VoteImport.objects.get().id}
    assert list((media / "imports").iterdir()) == []
    results = lead_client.get(f"/api/v1/projects/{compared.id}/results/?n_resamples=200&test_resamples=0").json()
    (votes,) = results["votes"]
    assert [s["system"] for s in votes["systems"]] == ["a", "b", "c"] and votes["n_votes"] == 32
    assert all(s["strength_ci"][0] < s["strength"] < s["strength_ci"][1] for s in votes["systems"])


def test_raw_bodies_in_each_format(compared, lead_client, tmp_path, django_capture_on_commit_callbacks):
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(arena_rows()), sink)
    ndjson = "".join(f'{{"model_a": "{a}", "model_b": "b", "winner": "tie"}}\n' for a in ("a", "c")).encode()
    for content_type, data in [
        ("application/vnd.apache.parquet", sink.getvalue()),
        ("application/x-ndjson", ndjson),
        ("text/csv", write_csv(tmp_path / "v.csv", arena_rows()).read_bytes()),
    ]:
        with django_capture_on_commit_callbacks(execute=True):
            response = lead_client.generic("POST", url(compared), data, content_type=content_type)
        assert response.status_code == 202, response.content
    assert Vote.objects.count() == 32 + 2 + 32


def test_a_bad_file_fails_the_job_with_its_lines_and_stores_nothing(
    compared, lead_client, tmp_path, media, django_capture_on_commit_callbacks
):
    rows = arena_rows()
    rows[2]["winner"] = "model_c"
    rows[9]["tstamp"] = "-5"
    body, _ = csv_upload(tmp_path, rows)
    response = post_file(lead_client, compared, body, django_capture_on_commit_callbacks)
    job = Job.objects.get(pk=response.json()["job_id"])
    assert job.state == Job.State.FAILURE and job.error.startswith("ImportRejected: 2 bad lines")
    assert job.result == {
        "detail": "2 bad lines; nothing was imported.",
        "n_errors": 2,
        "errors": [
            {"line": 4, "error": "winner: must be model_a, model_b, tie or tie (bothbad)"},
            {"line": 11, "error": "tstamp: must be seconds since 1970-01-01 UTC, up to year 9999"},
        ],
    }
    assert not Vote.objects.exists() and not VoteImport.objects.exists()
    assert list((media / "imports").iterdir()) == []


def test_members_only_and_only_the_lead_imports(compared, tmp_path, django_capture_on_commit_callbacks):
    rater = UserFactory(username="rater")
    MembershipFactory(project=compared, user=rater, role=Membership.Role.RATER)
    body, _ = csv_upload(tmp_path)
    assert post_file(client_for(rater), compared, body, django_capture_on_commit_callbacks).status_code == 403
    body, _ = csv_upload(tmp_path)
    stranger = client_for(UserFactory(username="stranger"))
    assert post_file(stranger, compared, body, django_capture_on_commit_callbacks).status_code == 404
    assert client_for(rater).get(f"/api/v1/projects/{compared.id}/results/").status_code == 403
    assert not Job.objects.exists() and not Vote.objects.exists()


def test_requests_that_cannot_start_an_import_get_400(
    project, compared, lead_client, tmp_path, django_capture_on_commit_callbacks
):
    body, _ = csv_upload(tmp_path)
    response = post_file(lead_client, project, body, django_capture_on_commit_callbacks)
    assert response.status_code == 400 and "compare pairs" in response.json()["detail"]
    body, _ = csv_upload(tmp_path)
    response = post_file(lead_client, compared, body, django_capture_on_commit_callbacks, "?criterion=style")
    assert response.status_code == 400 and "'style' is not one of 'overall'" in response.json()["detail"]
    body, _ = csv_upload(tmp_path)
    response = post_file(lead_client, compared, body, django_capture_on_commit_callbacks, "?file_format=xlsx")
    assert response.status_code == 400 and "csv, jsonl, parquet" in response.json()["detail"]
    response = lead_client.post(url(compared), {"other": "x"}, format="multipart")
    assert response.status_code == 400 and "file" in response.json()
    assert not Job.objects.exists()


def test_the_command_imports_and_names_bad_lines(compared, tmp_path, capsys):
    path = write_csv(tmp_path / "votes.csv", arena_rows())
    call_command("import_votes", str(compared.id), str(path), "--no-progress")
    assert "Imported 32 votes (arena layout, 3 systems) into project" in capsys.readouterr().out
    rows = arena_rows()
    rows[0]["model_b"] = "a"
    bad = write_csv(tmp_path / "bad.csv", rows)
    with pytest.raises(CommandError, match="1 bad line; nothing was imported"):
        call_command("import_votes", "arena", str(bad), "--no-progress")
    assert f"{bad}:2: model_b: the same system as on the other side" in capsys.readouterr().err
    with pytest.raises(CommandError, match="criterion 'style'"):
        call_command("import_votes", "arena", str(path), "--criterion", "style", "--no-progress")
    assert Vote.objects.count() == 32
