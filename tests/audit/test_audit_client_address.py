"""The audit log records the client address the trusted proxies report, never one the client wrote."""

import pytest

from audit.models import AuditEntry
from tests.conftest import client_for

pytestmark = pytest.mark.django_db
PROJECT = {
    "name": "audited",
    "task_type": "likert",
    "raters_per_item": 2,
    "criteria": [{"name": "fluency", "scale_min": 1, "scale_max": 5}],
}


@pytest.mark.parametrize(("trusted_proxies", "recorded"), [(0, "10.0.0.1"), (1, "198.51.100.7")])
def test_the_recorded_address_follows_the_trusted_proxies(staff, settings, trusted_proxies, recorded):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": trusted_proxies}
    # The proxy at 10.0.0.1 appended the address it saw to what the client wrote.
    response = client_for(staff).post(
        "/api/v1/projects/",
        PROJECT,
        format="json",
        REMOTE_ADDR="10.0.0.1",
        HTTP_X_FORWARDED_FOR="192.0.2.66, 198.51.100.7",
    )
    assert response.status_code == 201
    assert AuditEntry.objects.get(action="project.create").ip == recorded
