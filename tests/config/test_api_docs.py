"""The API docs work on an offline network: Swagger UI comes from the installed drf-spectacular-sidecar,
not a CDN. Schema and docs are public, like those of any open-source API: they describe the operations,
never data, and every operation still needs its token or session."""

import re

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_docs_page_references_no_external_host():
    response = Client().get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "swagger-ui" in page
    assert not re.search(r"(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", page), "an external URL in the docs page"
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', page)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets) and any(a.endswith(".css") for a in assets)
    for asset in assets:  # each one is served from this site's static files
        assert finders.find(asset.removeprefix("/static/")), asset


def test_schema_and_docs_need_no_login_but_the_operations_do():
    anonymous = Client()
    schema = anonymous.get("/api/schema/")
    assert schema.status_code == 200 and b"/api/v1/projects/" in schema.content
    assert anonymous.get("/api/v1/projects/").status_code in (401, 403)
