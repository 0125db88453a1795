"""CSRF on every session-authenticated write, token clients exempt; passwords validated when users are
created; secrets only from the environment. The login limits are in test_login_limits.py."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.security.test_access_matrix import EXPECTED, ROLES, ROUTES, _body, _path
from tests.security.world import PASSWORD, build_world

ROOT = Path(__file__).resolve().parents[2]
OPEN_TO_ALL = {"login", "logout", "api-token"}


def _admitted_role(name: str) -> str | None:
    """The first role the matrix lets through the POST (a rater, else staff), or None."""
    codes = dict(zip(ROLES, EXPECTED[name]["post"], strict=True))
    return next((role for role in ("rater", "staff", "lead") if codes[role] not in (401, 403, 404)), None)


# Deleting a project takes an admin, whom the world has not: tests/console/views/test_study_management_pages.py
# checks CSRF on those routes with one.
POSTS = [
    (route, name)
    for route, name in ROUTES
    if "post" in EXPECTED[name] and name not in OPEN_TO_ALL and _admitted_role(name) is not None
]


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.mark.django_db
@pytest.mark.parametrize(("route", "name"), POSTS, ids=[name for _, name in POSTS])
def test_session_writes_without_a_csrf_token_are_refused(route, name):
    world = build_world()
    path = _path(route, world)
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.users[_admitted_role(name)])
    if path.startswith("/api/"):
        response = client.post(path, data=_body(name, world), content_type="application/json")
    else:
        response = client.post(path, data=_body(name, world))
    assert response.status_code == 403, (path, response.status_code)
    assert b"CSRF" in response.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("route", "name"),
    [r for r in POSTS if r[0].startswith("api/")],
    ids=[name for route, name in POSTS if route.startswith("api/")],
)
def test_token_clients_need_no_csrf_token(route, name):
    world = build_world()
    path = _path(route, world)
    client = APIClient(enforce_csrf_checks=True)
    token, _ = Token.objects.get_or_create(user=world.users[_admitted_role(name)])
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.post(path, data=_body(name, world), format="json")
    assert b"CSRF" not in response.content
    assert response.status_code not in (401, 403), (path, response.status_code, response.content[:300])


@pytest.mark.django_db
def test_a_session_write_with_the_csrf_token_goes_through():
    world = build_world()
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.users["rater"])
    client.get(f"/projects/{world.project.pk}/instructions/")
    token = client.cookies["csrftoken"].value
    response = client.post(
        f"/api/v1/assignments/{world.assignment.pk}/flag/",
        data={"reason": "broken"},
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 201


@pytest.mark.django_db
def test_the_login_form_needs_its_csrf_token():
    build_world()
    client = Client(enforce_csrf_checks=True)
    response = client.post("/accounts/login/", {"username": "rater", "password": PASSWORD})
    assert response.status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize("password", ["short1", "password123", "1234567890123", "staffer-x"])
def test_weak_passwords_are_refused_on_user_creation(password):
    world = build_world()
    client = APIClient()
    client.force_authenticate(world.users["staff"])
    response = client.post("/api/v1/users/", {"username": "staffer-x", "password": password}, format="json")
    assert response.status_code == 400
    assert "password" in response.json()


@pytest.mark.django_db
def test_a_strong_password_is_accepted_and_stored_hashed():
    world = build_world()
    client = APIClient()
    client.force_authenticate(world.users["staff"])
    response = client.post("/api/v1/users/", {"username": "newrater", "password": "violet-Harbour-91"}, format="json")
    assert response.status_code == 201
    assert "password" not in response.json()
    from django.contrib.auth import get_user_model

    assert not get_user_model().objects.get(username="newrater").password.startswith("violet")


def test_settings_read_secrets_only_from_the_environment():
    # No literal secret key or password in the settings modules: each comes through env(...).
    for module in (ROOT / "config" / "settings").glob("*.py"):
        text = module.read_text()
        for line in text.splitlines():
            if re.match(r"\s*SECRET_KEY\s*=", line):
                assert "env(" in line or line.strip() == "SECRET_KEY = get_random_secret_key()", (module, line)
    production = (ROOT / "config" / "settings" / "production.py").read_text()
    assert 'SECRET_KEY = env("DJANGO_SECRET_KEY")' in production


def test_no_secret_key_in_the_tracked_files():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    pattern = re.compile(r"(?i)(secret_key|password|token)\s*[=:]\s*['\"][A-Za-z0-9!@#$%^&*()_+\-=]{32,}['\"]")
    offenders = []
    for name in tracked.splitlines():
        if not name.endswith((".py", ".yml", ".yaml", ".toml", ".cfg", ".ini", ".json")) or name.startswith("tests/"):
            continue
        path = ROOT / name
        if path.is_file() and pattern.search(path.read_text(errors="replace")):
            offenders.append(name)
    assert offenders == []


def test_production_settings_refuse_to_start_without_a_secret_key():
    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_ALLOWED_HOSTS": "example.org",
        "DATABASE_URL": "postgres://u:p@localhost/db",
    }
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr
