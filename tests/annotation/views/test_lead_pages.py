"""The lead's project page: progress and the item upload form with its per-line error report."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Item

pytestmark = pytest.mark.django_db

GOOD = b'{"external_id": "a", "input": "x", "outputs": [{"system": "s", "text": "t"}]}\n'


def test_login_page_is_served(client):
    response = client.get("/accounts/login/")
    assert response.status_code == 200 and b"Log in" in response.content


def test_pages_require_login(client, project):
    response = client.get(f"/projects/{project.id}/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_lead_uploads_items_through_the_form(client, lead, project):
    client.force_login(lead)
    response = client.post(f"/projects/{project.id}/items/import/",
                           {"file": SimpleUploadedFile("items.jsonl", GOOD)}, follow=True)
    assert b"Imported 1 items." in response.content
    assert Item.objects.filter(project=project).count() == 1


def test_a_bad_upload_shows_every_bad_line_and_stores_nothing(client, lead, project):
    client.force_login(lead)
    response = client.post(f"/projects/{project.id}/items/import/",
                           {"file": SimpleUploadedFile("items.jsonl", GOOD + b"{broken\n")})
    assert response.status_code == 400
    assert b"1 bad line; nothing was imported." in response.content and b"bad JSON" in response.content
    assert not Item.objects.exists()


def test_raters_cannot_upload_and_outsiders_do_not_see_the_project(client, rater, project, django_user_model):
    client.force_login(rater)
    assert client.post(f"/projects/{project.id}/items/import/",
                       {"file": SimpleUploadedFile("i.jsonl", GOOD)}).status_code == 403
    assert b"Import items" not in client.get(f"/projects/{project.id}/").content
    client.force_login(django_user_model.objects.create_user("outsider", password="x-pass-12345"))
    assert client.get(f"/projects/{project.id}/").status_code == 404


def test_the_upload_form_requires_a_csrf_token(lead, project):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(lead)
    response = client.post(f"/projects/{project.id}/items/import/", {"file": SimpleUploadedFile("i.jsonl", GOOD)})
    assert response.status_code == 403
