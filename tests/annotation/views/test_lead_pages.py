"""The project page: login required, and lead-only parts hidden from raters and outsiders (the item upload
page is tested in tests/console/views/test_item_upload.py)."""

import pytest

pytestmark = pytest.mark.django_db


def test_login_page_is_served(client):
    response = client.get("/accounts/login/")
    assert response.status_code == 200 and b"Log in" in response.content


def test_pages_require_login(client, project):
    response = client.get(f"/projects/{project.id}/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_raters_see_no_item_pages_and_outsiders_do_not_see_the_project(client, rater, project, django_user_model):
    client.force_login(rater)
    assert b"Upload items" not in client.get(f"/projects/{project.id}/").content
    client.force_login(django_user_model.objects.create_user("outsider", password="x-pass-12345"))
    assert client.get(f"/projects/{project.id}/").status_code == 404
