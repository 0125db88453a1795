"""PostgreSQL unreachable under a live server: clients get 503 with Retry-After (not 500), nothing is
half-written, a retried judgment (same client_token) is stored exactly once, and the server recovers
by itself once the database is back.

The outage is simulated on this test's own database only (the shared server keeps running): new
connections are refused (ALLOW_CONNECTIONS false) and the server's open connections terminated.
"""

import contextlib

import psycopg
import pytest
import requests
from django.db import connection
from rest_framework.authtoken.models import Token

from annotation.models import Judgment
from tests.annotation.rating import add_raters, rating_project

pytestmark = pytest.mark.django_db(transaction=True)


def _admin_dsn() -> str:
    db = connection.settings_dict
    return psycopg.conninfo.make_conninfo(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname="postgres",
    )


@contextlib.contextmanager
def database_outage():
    name = connection.settings_dict["NAME"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        own_pid = cursor.fetchone()[0]
    with psycopg.connect(_admin_dsn(), autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        try:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> %s AND pid <> pg_backend_pid()",
                [name, own_pid],
            )
            yield
        finally:
            admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')


def test_a_database_outage_answers_503_and_recovers_without_a_restart(live_server):
    # Given a rater with two screens leased over the API
    project = rating_project(n_items=4, criteria=["fluency"], systems=["s1", "s2"])
    (rater,) = add_raters(project)
    token = Token.objects.create(user=rater).key
    api = requests.Session()
    api.headers["Authorization"] = f"Token {token}"
    base = f"{live_server.url}/api/v1"

    def next_screen():
        return api.post(f"{base}/projects/{project.pk}/next/", timeout=30)

    def judge(screen, client_token):
        values = [
            {"criterion": c["name"], "position": o["position"], "value": 4}
            for c in screen["criteria"]
            for o in screen["item"]["outputs"]
        ]
        return api.post(
            f"{base}/assignments/{screen['assignment_id']}/judgment/",
            json={"values": values, "client_token": client_token},
            timeout=30,
        )

    first = next_screen()
    assert first.status_code == 200
    assert judge(first.json(), "before").status_code == 201
    second = next_screen().json()

    # When the database goes away
    with database_outage():
        refused_next = next_screen()
        refused_judgment = judge(second, "during")
        page = requests.get(f"{live_server.url}/accounts/login/", timeout=30)
        # Then the clients are told to come back, not that the server broke
        for response in (refused_next, refused_judgment):
            assert response.status_code == 503, response.text[:300]
            assert int(response.headers["Retry-After"]) > 0
            assert "database is unavailable" in response.json()["detail"]
        assert page.status_code in (200, 503)  # the login page needs no database until it is posted

    # And once it is back, the same server answers again and the retried judgment is stored once
    retried = judge(second, "during")
    assert retried.status_code == 201, retried.text[:300]
    assert judge(second, "during").status_code == 200
    assert next_screen().status_code == 200
    stored = Judgment.objects.filter(assignment_id=second["assignment_id"])
    assert stored.count() == 2  # one criterion × two outputs, written once
    assert set(stored.values_list("client_token", flat=True)) == {"during"}
    assert Judgment.objects.filter(client_token="before").count() == 2
