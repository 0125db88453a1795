"""The item upload page: a plain form post, and the script's path through an import job; a bad file shows
every bad line with its field and stores nothing."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Item, Output
from core.models import Job

pytestmark = pytest.mark.django_db


def _line(external_id, **fields):
    return json.dumps(
        {
            "external_id": external_id,
            "input": f"input {external_id}",
            "outputs": [{"system": "bart", "text": "a"}, {"system": "pegasus", "text": "b"}],
            **fields,
        }
    )


GOOD = "\n".join(_line(f"doc{k}", subgroup="news") for k in range(5)).encode() + b"\n"
# Line 1 good; 2: no input; 3: not JSON; 4: empty system name; 5: an unknown field; 6: a repeated id.
BAD = (
    "\n".join(
        [
            _line("ok1"),
            json.dumps({"external_id": "x2", "outputs": [{"system": "bart", "text": "a"}]}),
            "{broken",
            json.dumps({"external_id": "x4", "input": "i", "outputs": [{"system": "", "text": "a"}]}),
            _line("x5", colour="red"),
            _line("ok1"),
        ]
    ).encode()
    + b"\n"
)
EXPECTED_ERRORS = [
    {"line": 2, "field": "input", "problem": "input is missing"},
    {"line": 3, "field": "", "problem": "bad JSON: Expecting property name enclosed in double quotes"},
    {
        "line": 4,
        "field": "outputs[1].system",
        "problem": "outputs[1].system must be a non-empty name of at most 200 characters",
    },
    {
        "line": 5,
        "field": "colour",
        "problem": "unknown field 'colour'; fields are external_id, input, turns, references, reference, outputs, "
        "subgroup, meta, gold, training",
    },
    {"line": 6, "field": "external_id", "problem": "duplicate external_id 'ok1' (first on line 1)"},
]


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def _upload(client, project, body, name="items.jsonl", **headers):
    return client.post(f"/projects/{project.pk}/items/upload/", {"file": SimpleUploadedFile(name, body)}, **headers)


def test_the_page_has_a_labelled_file_field_and_a_csrf_token(client, lead, project):
    client.force_login(lead)
    html = client.get(f"/projects/{project.pk}/items/upload/").content.decode()
    assert '<label for="id_file">' in html and 'id="id_file"' in html and "csrfmiddlewaretoken" in html
    assert 'id="upload-progress"' in html and "console/item_upload.js" in html


def test_a_plain_form_post_imports_and_opens_the_browser(client, lead, project):
    client.force_login(lead)
    response = _upload(client, project, GOOD)
    assert response.status_code == 302 and response["Location"] == f"/projects/{project.pk}/items/"
    assert sorted(Item.objects.filter(project=project).values_list("external_id", flat=True)) == [
        f"doc{k}" for k in range(5)
    ]
    assert Output.objects.filter(item__project=project).count() == 10
    assert b"Imported 5 items." in client.get(response["Location"]).content


def test_a_csv_file_is_imported_too(client, lead, project):
    client.force_login(lead)
    body = b"external_id,input,output_1,system_1\nc1,hello,world,bart\nc2,hi,there,bart\n"
    assert _upload(client, project, body, name="items.csv").status_code == 302
    assert Item.objects.filter(project=project).count() == 2


def test_a_bad_plain_upload_lists_line_field_problem_and_stores_nothing(client, lead, project):
    client.force_login(lead)
    response = _upload(client, project, BAD)
    assert response.status_code == 400
    assert response.context["import_errors"]["errors"] == EXPECTED_ERRORS
    html = response.content.decode()
    assert "5 bad lines; nothing was imported." in html
    assert "<td>4</td><td><code>outputs[1].system</code></td>" in html
    assert not Item.objects.filter(project=project).exists() and not Output.objects.exists()


def test_the_script_path_runs_an_import_job_with_progress(
    client, lead, project, media, django_capture_on_commit_callbacks
):
    client.force_login(lead)
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(client, project, GOOD, HTTP_ACCEPT="application/json")
    assert response.status_code == 202
    body = response.json()
    assert body["job_url"] == f"/api/v1/jobs/{body['job_id']}/"
    assert body["items_url"] == f"/projects/{project.pk}/items/"
    job = client.get(body["job_url"]).json()
    # The start answers the job's status as the jobs API does (the job ran once the request committed).
    assert set(body) == set(job) | {"job_url", "items_url"}
    assert (body["kind"], body["state"], body["progress"], body["result"]) == ("item_import", "pending", 0.0, {})
    assert (job["kind"], job["state"], job["progress"], job["result"]) == (
        "item_import",
        "success",
        1.0,
        {"imported": 5},
    )
    assert Item.objects.filter(project=project).count() == 5
    assert list((media / "imports").iterdir()) == []  # the kept upload is gone once imported


def test_a_bad_file_through_the_job_fails_with_the_report_and_stores_nothing(
    client, lead, project, media, django_capture_on_commit_callbacks
):
    client.force_login(lead)
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(client, project, BAD, HTTP_ACCEPT="application/json")
    job = Job.objects.get(pk=response.json()["job_id"])
    assert job.state == Job.State.FAILURE and job.error.startswith("ImportRejected: 5 bad lines")
    assert job.result == {"detail": "5 bad lines; nothing was imported.", "n_errors": 5, "errors": EXPECTED_ERRORS}
    assert client.get(f"/api/v1/jobs/{job.pk}/").json()["result"]["errors"][0] == EXPECTED_ERRORS[0]
    assert not Item.objects.filter(project=project).exists() and not Output.objects.exists()
    assert list((media / "imports").iterdir()) == []


def test_the_script_path_without_a_file_or_past_the_size_limit(client, lead, project, settings):
    client.force_login(lead)
    response = client.post(f"/projects/{project.pk}/items/upload/", {}, HTTP_ACCEPT="application/json")
    assert response.status_code == 400 and response.json()["detail"] == "Choose a file to upload."
    settings.CONCORD_MAX_IMPORT_BYTES = 10
    response = _upload(client, project, GOOD, HTTP_ACCEPT="application/json")
    assert response.status_code == 413 and "CONCORD_MAX_IMPORT_BYTES" in response.json()["detail"]
    assert not Job.objects.exists()


def test_raters_get_403_and_outsiders_404(client, rater, project, django_user_model):
    client.force_login(rater)
    assert client.get(f"/projects/{project.pk}/items/upload/").status_code == 403
    assert _upload(client, project, GOOD).status_code == 403
    client.force_login(django_user_model.objects.create_user("outsider", password="x-pass-12345"))
    assert client.get(f"/projects/{project.pk}/items/upload/").status_code == 404
    assert not Item.objects.exists()


def test_the_upload_requires_a_csrf_token(lead, project):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(lead)
    assert _upload(client, project, GOOD).status_code == 403
    assert _upload(client, project, GOOD, HTTP_ACCEPT="application/json").status_code == 403
    assert not Item.objects.exists()
