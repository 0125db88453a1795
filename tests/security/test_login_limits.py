"""Login limits behind a proxy: django-axes locks an account out from one address after repeated bad
passwords on the login page, the admin login and the token endpoint; a rate per client address caps
attempts across accounts. Client addresses follow the trusted-proxy rule (CONCORD_TRUSTED_PROXIES), so a
forged X-Forwarded-For neither resets a limit nor lets one client's failures fall on everyone else."""

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from staffing.views_auth import LoginRateThrottle
from tests.annotation.factories import UserFactory

PASSWORD = "pass-word-1234"
PROXY = "10.0.0.1"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def behind_one_proxy(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}


def via_proxy(client_ip: str, forged: str | None = None) -> dict:
    """What Concord receives from one trusted proxy: it appends the address it saw to whatever the
    client wrote into X-Forwarded-For."""
    header = f"{forged}, {client_ip}" if forged else client_ip
    return {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": header}


def page_login(username: str, password: str, **meta) -> int:
    response = Client(**meta).post("/accounts/login/", {"username": username, "password": password})
    return response.status_code


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_bad_logins_lock_the_account_out_from_that_address_even_with_the_right_password(settings):
    settings.AXES_FAILURE_LIMIT = 3
    UserFactory(username="rater", password=PASSWORD)
    UserFactory(username="lead", password=PASSWORD)
    client = Client()
    codes = [
        client.post("/accounts/login/", {"username": "rater", "password": f"guess-{i}"}).status_code for i in range(5)
    ]
    assert codes == [200, 200, 429, 429, 429]
    refused = client.post("/accounts/login/", {"username": "rater", "password": PASSWORD})
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 15 * 60
    page = refused.content.decode()
    assert "Too many failed logins for this account from your address" in page
    assert 'href="/accounts/login/"' in page and "Error 429" in page
    assert not logged_in(client)
    # Neither another account from the same address nor the same account from elsewhere is affected.
    assert page_login("lead", PASSWORD) == 302
    assert page_login("rater", PASSWORD, REMOTE_ADDR="10.0.0.9") == 302


def test_one_users_bad_logins_behind_the_proxy_do_not_lock_out_others(settings, behind_one_proxy):
    # Everyone arrives from the proxy's socket address; 30 bad logins from one rater's machine...
    UserFactory(username="rater", password=PASSWORD)
    UserFactory(username="other", password=PASSWORD)
    for i in range(30):
        page_login("rater", f"guess-{i}", **via_proxy("198.51.100.7"))
    assert page_login("rater", PASSWORD, **via_proxy("198.51.100.7")) == 429
    # ...lock neither another rater elsewhere nor one sharing that address, nor the rater elsewhere.
    assert page_login("other", PASSWORD, **via_proxy("203.0.113.20")) == 302
    assert page_login("other", PASSWORD, **via_proxy("198.51.100.7")) == 302
    assert page_login("rater", PASSWORD, **via_proxy("203.0.113.21")) == 302


@pytest.mark.parametrize("trusted_proxies", [0, 1])
def test_a_forged_x_forwarded_for_does_not_reset_the_lockout(settings, trusted_proxies):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": trusted_proxies}
    settings.AXES_FAILURE_LIMIT = 3
    UserFactory(username="rater", password=PASSWORD)
    attacker = "198.51.100.7"

    def meta(i):
        forged = f"192.0.2.{i}"
        return (
            via_proxy(attacker, forged)
            if trusted_proxies
            else {"REMOTE_ADDR": attacker, "HTTP_X_FORWARDED_FOR": forged}
        )

    codes = [page_login("rater", f"guess-{i}", **meta(i)) for i in range(6)]
    assert codes == [200, 200, 429, 429, 429, 429]
    assert page_login("rater", PASSWORD, **meta(99)) == 429


def test_the_admin_login_is_limited(settings):
    # The configured limit (10 by default): 30 wrong passwords, then the right one does not get in.
    UserFactory(username="admin", password=PASSWORD, is_staff=True, is_superuser=True)
    client = Client()
    for i in range(30):
        client.post("/admin/login/?next=/admin/", {"username": "admin", "password": f"guess-{i}"})
    response = client.post("/admin/login/?next=/admin/", {"username": "admin", "password": PASSWORD})
    assert response.status_code == 429
    assert b"Too many failed logins" in response.content
    assert not logged_in(client)
    assert client.get("/admin/").status_code == 302  # still sent to the login form
    # The admin from another address is not locked out.
    other = Client(REMOTE_ADDR="10.0.0.9")
    assert other.post("/admin/login/?next=/admin/", {"username": "admin", "password": PASSWORD}).status_code == 302
    assert logged_in(other)


def test_bad_credentials_at_the_token_endpoint_count_towards_the_lockout(settings):
    settings.AXES_FAILURE_LIMIT = 3
    UserFactory(username="rater", password=PASSWORD)
    client = APIClient()
    codes = [
        client.post("/api/v1/auth/token/", {"username": "rater", "password": f"guess-{i}"}, format="json").status_code
        for i in range(3)
    ]
    assert codes == [400, 400, 429]
    refused = client.post("/api/v1/auth/token/", {"username": "rater", "password": PASSWORD}, format="json")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many failed logins" in refused.json()["detail"]
    # The page login of the same account from the same address is locked too: one count.
    assert page_login("rater", PASSWORD) == 429


def test_successful_logins_do_not_count(settings):
    settings.AXES_FAILURE_LIMIT = 2
    UserFactory(username="rater", password=PASSWORD)
    assert page_login("rater", "guess") == 200
    for _ in range(4):
        assert page_login("rater", PASSWORD) == 302
    # A success clears the account's failures from that address.
    assert page_login("rater", "guess-again") == 200
    assert page_login("rater", PASSWORD) == 302


def test_the_token_endpoint_is_rate_limited_per_address(monkeypatch):
    UserFactory(username="rater", password=PASSWORD)
    monkeypatch.setattr(LoginRateThrottle, "THROTTLE_RATES", {"auth": "3/min"})
    client = APIClient()
    codes = [
        client.post("/api/v1/auth/token/", {"username": "rater", "password": PASSWORD}, format="json").status_code
        for _ in range(5)
    ]
    assert codes == [200, 200, 200, 429, 429]


@pytest.mark.parametrize("trusted_proxies", [0, 1])
def test_a_forged_x_forwarded_for_does_not_reset_the_token_endpoint_limit(settings, monkeypatch, trusted_proxies):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": trusted_proxies}
    monkeypatch.setattr(LoginRateThrottle, "THROTTLE_RATES", {"auth": "3/min"})
    UserFactory(username="rater", password=PASSWORD)
    client_ip = "198.51.100.7"

    def post(i):
        forged = f"192.0.2.{i}"
        meta = (
            via_proxy(client_ip, forged)
            if trusted_proxies
            else {"REMOTE_ADDR": client_ip, "HTTP_X_FORWARDED_FOR": forged}
        )
        return (
            APIClient()
            .post("/api/v1/auth/token/", {"username": "rater", "password": PASSWORD}, format="json", **meta)
            .status_code
        )

    assert [post(i) for i in range(5)] == [200, 200, 200, 429, 429]
    # Another client behind the same proxy still gets through.
    other = via_proxy("203.0.113.20") if trusted_proxies else {"REMOTE_ADDR": "203.0.113.20"}
    assert (
        APIClient()
        .post("/api/v1/auth/token/", {"username": "rater", "password": PASSWORD}, format="json", **other)
        .status_code
        == 200
    )


def test_the_login_page_and_the_token_endpoint_share_the_rate_per_address(monkeypatch):
    UserFactory(username="rater", password=PASSWORD)
    UserFactory(username="lead", password=PASSWORD)
    monkeypatch.setattr(LoginRateThrottle, "THROTTLE_RATES", {"auth": "3/min"})
    for name in ("rater", "lead", "rater"):  # different accounts: the lockout never sees these
        assert page_login(name, "guess") == 200
    refused = Client().post("/accounts/login/", {"username": "lead", "password": PASSWORD})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert b"Too many login attempts from your address" in refused.content
    assert (
        APIClient().post("/api/v1/auth/token/", {"username": "lead", "password": PASSWORD}, format="json").status_code
        == 429
    )
