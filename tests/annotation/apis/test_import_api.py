"""Import endpoints: bodies, uploads, formats, error answers and who may call them."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from annotation.models import Item, Judgment
from tests.annotation.factories import ProjectFactory, UserFactory
from tests.annotation.import_lines import item
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def ndjson(*records) -> bytes:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records).encode()


def post_items(client, project, body, content_type="application/x-ndjson"):
    return client.post(f"/api/v1/projects/{project.id}/items/import/", body, content_type=content_type)


def test_ndjson_body_imports(project, lead_client):
    response = post_items(lead_client, project, ndjson(item("a"), item("b")))
    assert response.status_code == 201 and response.json() == {"imported": 2}


def test_bad_lines_answer_400_with_every_line_and_reason(project, lead_client):
    response = post_items(
        lead_client, project, ndjson(item("a"), "{oops", item("c"), {**item("d"), "gold": {"fluency": 0}})
    )
    assert response.status_code == 400
    body = response.json()
    assert body["n_errors"] == 2 and [e["line"] for e in body["errors"]] == [2, 4]
    assert "bad JSON" in body["errors"][0]["error"] and "off the scale" in body["errors"][1]["error"]
    assert "nothing was imported" in body["detail"]
    assert not Item.objects.filter(project=project).exists()


def test_csv_body_and_multipart_uploads_import(project, lead_client):
    csv_body = b"external_id,input,output_1,system_1\nc1,in,out,sys\n"
    assert post_items(lead_client, project, csv_body, "text/csv").json() == {"imported": 1}
    upload = SimpleUploadedFile("items.csv", b"external_id,input,output_1,system_1\nc2,in,out,sys\n")
    response = lead_client.post(f"/api/v1/projects/{project.id}/items/import/", {"file": upload}, format="multipart")
    assert response.status_code == 201
    upload = SimpleUploadedFile("items.jsonl", ndjson(item("j1")))
    response = lead_client.post(f"/api/v1/projects/{project.id}/items/import/", {"file": upload}, format="multipart")
    assert response.status_code == 201
    assert Item.objects.filter(project=project).count() == 3


def test_multipart_without_a_file_field_is_a_clear_400(project, lead_client):
    response = lead_client.post(f"/api/v1/projects/{project.id}/items/import/", {"other": "x"}, format="multipart")
    assert response.status_code == 400 and "file" in response.json()


@override_settings(CONCORD_MAX_IMPORT_BYTES=100)
def test_an_import_over_the_size_limit_answers_413(project, lead_client):
    response = post_items(lead_client, project, ndjson(*[item(f"i{k}") for k in range(10)]))
    assert response.status_code == 413 and "CONCORD_MAX_IMPORT_BYTES" in response.json()["detail"]


def test_unsupported_content_type_answers_415(project, lead_client):
    assert post_items(lead_client, project, b"<xml/>", "application/xml").status_code == 415


def test_judgment_import_and_listing(project, lead_client):
    post_items(lead_client, project, ndjson(item("a", ("s1", "s2"))))
    lines = [{"item": "a", "rater": f"w{r}", "criterion": "fluency", "system": "s1", "value": 3} for r in range(3)]
    response = lead_client.post(
        f"/api/v1/projects/{project.id}/judgments/import/", ndjson(*lines), content_type="application/x-ndjson"
    )
    assert response.status_code == 201 and response.json() == {"imported": 3}
    listed = lead_client.get(f"/api/v1/projects/{project.id}/judgments/").json()
    assert listed["count"] == 3
    assert {(j["item"], j["rater"], j["system"], j["criterion"], j["value"]) for j in listed["results"]} == {
        ("a", f"w{r}", "s1", "fluency", 3.0) for r in range(3)
    }
    bad = lead_client.post(
        f"/api/v1/projects/{project.id}/judgments/import/",
        ndjson({**lines[0], "rater": "w9", "value": 9}),
        content_type="application/x-ndjson",
    )
    assert bad.status_code == 400 and bad.json()["errors"][0]["line"] == 1
    assert Judgment.objects.filter(project=project).count() == 3


def test_judgment_list_is_paginated_with_a_constant_number_of_queries(
    project, lead_client, django_assert_max_num_queries
):
    post_items(lead_client, project, ndjson(*[item(f"i{k}") for k in range(30)]))
    lines = [
        {"item": f"i{k}", "rater": f"w{r}", "criterion": "fluency", "system": "sysA", "value": 2}
        for k in range(30)
        for r in range(4)
    ]
    lead_client.post(
        f"/api/v1/projects/{project.id}/judgments/import/", ndjson(*lines), content_type="application/x-ndjson"
    )
    with django_assert_max_num_queries(8):
        page = lead_client.get(f"/api/v1/projects/{project.id}/judgments/?page_size=100").json()
    assert page["count"] == 120 and len(page["results"]) == 100 and page["next"]


def test_item_list_has_a_constant_number_of_queries(project, lead_client, django_assert_max_num_queries):
    post_items(lead_client, project, ndjson(*[item(f"i{k}", ("a", "b")) for k in range(50)]))
    with django_assert_max_num_queries(8):
        page = lead_client.get(f"/api/v1/projects/{project.id}/items/").json()
    assert page["count"] == 50 and page["results"][0]["outputs"][1]["system"] == "b"


@pytest.mark.parametrize("path", ["items/import/", "judgments/import/"])
def test_raters_get_403_and_outsiders_404_on_imports(project, rater_client, path):
    assert (
        rater_client.post(
            f"/api/v1/projects/{project.id}/{path}", ndjson(item("a")), content_type="application/x-ndjson"
        ).status_code
        == 403
    )
    outsider = client_for(UserFactory(username="outsider"))
    assert (
        outsider.post(
            f"/api/v1/projects/{project.id}/{path}", ndjson(item("a")), content_type="application/x-ndjson"
        ).status_code
        == 404
    )
    assert not Item.objects.filter(project=project).exists()


def test_anonymous_callers_get_401(project, api_client):
    assert (
        api_client.post(
            f"/api/v1/projects/{project.id}/items/import/", ndjson(item("a")), content_type="application/x-ndjson"
        ).status_code
        == 401
    )
    assert api_client.get(f"/api/v1/projects/{project.id}/items/").status_code == 401


def test_another_projects_lead_sees_nothing_of_this_one(project):
    other_lead = UserFactory(username="other-lead")
    other = ProjectFactory(name="other")
    other.memberships.create(user=other_lead, role="lead")
    client = client_for(other_lead)
    assert client.get(f"/api/v1/projects/{project.id}/items/").status_code == 404
    assert client.get(f"/api/v1/projects/{project.id}/").status_code == 404
