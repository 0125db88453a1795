"""Keeps a user who still has a one-time password (a bulk-created account) out of everything but the
password change: pages redirect there, the session-authenticated API answers 403.

The check costs a query only when a user logs in (any login form: the signal, not a URL); the session then
carries the obligation until the change. An API request with a token header is authenticated by the
token, not the session, and the token endpoint refuses such an account a token itself
(staffing.selectors.passwords, listed in CONCORD_TOKEN_REFUSALS).
"""

from django.http import JsonResponse
from django.shortcuts import redirect
from django.urls import reverse

from staffing.models import PasswordChangeRequired
from staffing.selectors.passwords import ONE_TIME_PASSWORD

MUST_CHANGE = "staffing-must-change-password"


def must_change_password_on_login(sender, request, user, **kwargs):
    """``user_logged_in`` receiver: marks the session of an account with a one-time password."""
    if request is not None and PasswordChangeRequired.objects.filter(user=user).exists():
        request.session[MUST_CHANGE] = True


def _token_authenticated(request) -> bool:
    """DRF authenticates by the token when the header names one (a wrong key is a 401, never a fall-back
    to the session); any other header falls back to the session, so it must not pass."""
    scheme = request.META.get("HTTP_AUTHORIZATION", "").split(maxsplit=1)[:1]
    return [s.lower() for s in scheme] == ["token"]


class PasswordChangeRequiredMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.session.get(MUST_CHANGE):
            return self.get_response(request)
        change = reverse("staffing-password-change")
        if request.path.startswith("/api/"):
            if _token_authenticated(request):
                return self.get_response(request)
            return JsonResponse({"detail": ONE_TIME_PASSWORD, "password_change_url": change}, status=403)
        if request.path not in (change, reverse("logout")):
            return redirect(f"{change}?next={request.path}")
        return self.get_response(request)
