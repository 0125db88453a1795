"""The OpenAPI schema documents the contract paths, and Swagger UI serves it."""

import pytest

pytestmark = pytest.mark.django_db

CONTRACT_PATHS = [
    "/api/v1/auth/token/",
    "/api/v1/users/",
    "/api/v1/projects/",
    "/api/v1/projects/{id}/members/",
    "/api/v1/projects/{id}/items/",
    "/api/v1/projects/{id}/items/import/",
    "/api/v1/projects/{id}/judgments/",
    "/api/v1/projects/{id}/judgments/import/",
]


def test_schema_lists_the_contract_paths(lead_client):
    response = lead_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    paths = set(schema["paths"])
    assert not set(CONTRACT_PATHS) - paths
    import_body = schema["paths"]["/api/v1/projects/{id}/items/import/"]["post"]["requestBody"]["content"]
    assert {"application/x-ndjson", "text/csv", "multipart/form-data"} <= set(import_body)


def test_swagger_ui_is_served(lead_client):
    response = lead_client.get("/api/docs/")
    assert response.status_code == 200 and b"swagger" in response.content.lower()
