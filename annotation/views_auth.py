"""Throttled sign-in: the login page (too many failed attempts from one address within
``CONCORD_LOGIN_THROTTLE_RATE``, DRF syntax such as ``20/min``, get 429 until the window passes) and
the token endpoint's throttle. Both count in the cache; while the cache (Redis) is down they let
requests through and log it, so an outage does not lock every rater out."""
import logging

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.core.cache import cache
from redis.exceptions import RedisError
from rest_framework.throttling import ScopedRateThrottle, SimpleRateThrottle

logger = logging.getLogger(__name__)
KEY = "login-failures:{}"
CACHE_DOWN = (RedisError, ConnectionError, TimeoutError)


def _rate() -> tuple[int | None, int | None]:
    return SimpleRateThrottle.parse_rate(None, settings.CONCORD_LOGIN_THROTTLE_RATE or None)


def _failures(key: str) -> int:
    try:
        return cache.get(key) or 0
    except CACHE_DOWN as exc:
        logger.warning("login throttle off, the cache is down: %s", exc)
        return 0


def _count_failure(key: str, window: int) -> None:
    try:
        cache.add(key, 0, timeout=window)
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, timeout=window)
    except CACHE_DOWN as exc:
        logger.warning("login throttle off, the cache is down: %s", exc)


class LoginView(auth_views.LoginView):
    def post(self, request, *args, **kwargs):
        limit, window = _rate()
        key = KEY.format(request.META.get("REMOTE_ADDR", ""))
        if limit is not None and _failures(key) >= limit:
            # An unbound form: binding it would try the password, which is what is being refused.
            response = self.render_to_response(self.get_context_data(
                form=self.get_form_class()(request), throttled=True), status=429)
            response["Retry-After"] = str(window)
            return response
        response = super().post(request, *args, **kwargs)
        if limit is not None and response.status_code == 200:  # the form again: a failed attempt
            _count_failure(key, window)
        return response


class AuthRateThrottle(ScopedRateThrottle):
    """DRF's scoped throttle ("auth" scope), letting requests through while the cache is down."""

    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except CACHE_DOWN as exc:
            logger.warning("token endpoint throttle off, the cache is down: %s", exc)
            return True
