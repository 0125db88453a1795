"""Sign-in limits.

django-axes counts failed logins per account and client address (the ``AXES_*`` settings) wherever a
password is checked: the login page, the admin's login and the token endpoint; a locked-out client gets
``lockout_response`` (429) until the cool-off passes, even with the right password. Across accounts,
``LoginRateThrottle`` caps the attempts of one client address on the login page and the token endpoint.
The throttle counts in the cache; while the cache (Redis) is down it lets requests through and logs it, so
an outage does not lock every rater out (the lockout counts in the database and still holds).
"""

import logging

from axes.helpers import get_cool_off
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from redis.exceptions import RedisError
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger(__name__)
CACHE_DOWN = (RedisError, ConnectionError, TimeoutError)
LOCKED_OUT = "Too many failed logins for this account from your address"
RATE_LIMITED = "Too many login attempts from your address"


class LoginRateThrottle(SimpleRateThrottle):
    """Login attempts per client address (``CONCORD_AUTH_THROTTLE_RATE``), the login page and the token
    endpoint counting together."""

    scope = "auth"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except CACHE_DOWN as exc:
            logger.warning("login throttle off, the cache is down: %s", exc)
            return True


def too_many_attempts(request: HttpRequest, *, reason: str, retry_after: float) -> HttpResponse:
    """429 with Retry-After: JSON under /api/, else the styled page."""
    seconds = max(1, round(retry_after))
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": f"{reason}; try again in {seconds} s."}, status=429)
    else:
        minutes = -(-seconds // 60)
        response = render(request, "429.html", {"reason": reason, "minutes": minutes}, status=429)
    response["Retry-After"] = str(seconds)
    return response


def lockout_response(request: HttpRequest, original_response, credentials) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: the answer to a login refused by django-axes."""
    return too_many_attempts(request, reason=LOCKED_OUT, retry_after=get_cool_off(request).total_seconds())


class LoginView(auth_views.LoginView):
    def post(self, request, *args, **kwargs):
        throttle = LoginRateThrottle()
        if not throttle.allow_request(request, self):
            return too_many_attempts(request, reason=RATE_LIMITED, retry_after=throttle.wait() or 60)
        return super().post(request, *args, **kwargs)
