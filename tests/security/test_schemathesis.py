"""Schemathesis over every operation of /api/schema/ with a lead's token: generated (and hostile)
parameters and bodies never get a 500, and documented responses match their schemas.

Path ids point at a real project (its assignment, job, export, calibrator) so the requests reach the
views' validation instead of stopping at 404. Bounded to a few examples per operation."""
import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token

from config.wsgi import application
from tests.security.world import build_world


def _load_schema():
    # drf-spectacular's own generator: loading over HTTP would need the database at import time
    # (ATOMIC_REQUESTS), before pytest-django allows it.
    import json

    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer
    document = json.loads(OpenApiJsonRenderer().render(SchemaGenerator().get_schema(request=None, public=True)))
    loaded = schemathesis.openapi.from_dict(document)
    loaded.app = application
    return loaded


schema = _load_schema()


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    # As Django's test client does: requests through the WSGI app must not close the test's connection.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)

# Operations that start heavy work (model downloads, embeddings) are driven with tiny bodies elsewhere.
SKIPPED = ("/api/v1/projects/{id}/metrics/compute/", "/api/v1/projects/{id}/judges/from-metric/")
CHECKS = [schemathesis.checks.not_a_server_error, schemathesis.checks.response_schema_conformance]

_WORLD = {}


@pytest.fixture
def lead_token(db):
    world = build_world()
    _WORLD["world"] = world
    return Token.objects.get_or_create(user=world.users["lead"])[0].key


def _ids(case):
    world = _WORLD["world"]
    path = case.path
    for name in list(case.path_parameters or {}):
        if name in ("calibrator_id", "invite_id"):
            case.path_parameters[name] = world.ids[name]
        elif path.startswith("/api/v1/assignments/"):
            case.path_parameters[name] = world.ids["pk_assignment"]
        elif path.startswith("/api/v1/jobs/"):
            case.path_parameters[name] = world.ids["pk_job"]
        elif path.startswith("/api/v1/exports/"):
            case.path_parameters[name] = world.ids["pk_export"]
        else:
            case.path_parameters[name] = world.ids["pk_project"]


@schema.exclude(path=list(SKIPPED)).parametrize()
@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_api_conforms_and_never_fails(case, lead_token):
    _ids(case)
    case.call_and_validate(headers={"Authorization": f"Token {lead_token}"}, checks=CHECKS)
