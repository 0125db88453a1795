"""Sends a user who still has a one-time password (a bulk-created account) to the password change
page before anything else.

The check costs a query only when a user logs in (any login form: the signal, not a URL); the session then
carries the obligation until the change. Pages only: the API's token endpoint refuses such an account
itself (staffing.selectors.passwords, listed in CONCORD_TOKEN_REFUSALS).
"""
from django.shortcuts import redirect
from django.urls import reverse

from staffing.models import PasswordChangeRequired

MUST_CHANGE = "staffing-must-change-password"


def must_change_password_on_login(sender, request, user, **kwargs):
    """``user_logged_in`` receiver: marks the session of an account with a one-time password."""
    if request is not None and PasswordChangeRequired.objects.filter(user=user).exists():
        request.session[MUST_CHANGE] = True


class PasswordChangeRequiredMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.session.get(MUST_CHANGE) and not request.path.startswith("/api/"):
            change = reverse("staffing-password-change")
            if request.path not in (change, reverse("logout")):
                return redirect(f"{change}?next={request.path}")
        return self.get_response(request)
