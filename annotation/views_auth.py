"""The login page, throttled: too many failed attempts from one address within the configured
window (``CONCORD_LOGIN_THROTTLE_RATE``, DRF syntax such as ``20/min``) get 429 until it passes."""
from django.conf import settings
from django.contrib.auth import views as auth_views
from django.core.cache import cache
from rest_framework.throttling import SimpleRateThrottle

KEY = "login-failures:{}"


def _rate() -> tuple[int | None, int | None]:
    return SimpleRateThrottle.parse_rate(None, settings.CONCORD_LOGIN_THROTTLE_RATE or None)


class LoginView(auth_views.LoginView):
    def post(self, request, *args, **kwargs):
        limit, window = _rate()
        key = KEY.format(request.META.get("REMOTE_ADDR", ""))
        if limit is not None and (cache.get(key) or 0) >= limit:
            # An unbound form: binding it would try the password, which is what is being refused.
            response = self.render_to_response(self.get_context_data(
                form=self.get_form_class()(request), throttled=True), status=429)
            response["Retry-After"] = str(window)
            return response
        response = super().post(request, *args, **kwargs)
        if limit is not None and response.status_code == 200:  # the form again: a failed attempt
            cache.add(key, 0, timeout=window)
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.set(key, 1, timeout=window)
        return response
