"""Sends a user who still has a one-time password (a bulk-created account) to the password change
page before anything else.

The check costs a query only on a successful login through the login page; the session then carries the
obligation until the change. Pages only: the API's token endpoint refuses such an account itself
(staffing.selectors.passwords, listed in CONCORD_TOKEN_REFUSALS).
"""
from django.shortcuts import redirect
from django.urls import reverse

from staffing.models import PasswordChangeRequired

MUST_CHANGE = "staffing-must-change-password"


class PasswordChangeRequiredMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        change = reverse("staffing-password-change")
        if (request.session.get(MUST_CHANGE) and not request.path.startswith("/api/")
                and request.path not in (change, reverse("logout"))):
            return redirect(f"{change}?next={request.path}")
        response = self.get_response(request)
        if (request.method == "POST" and request.path == reverse("login") and request.user.is_authenticated
                and PasswordChangeRequired.objects.filter(user=request.user).exists()):
            request.session[MUST_CHANGE] = True
        return response
