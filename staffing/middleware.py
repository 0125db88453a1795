"""Sends a user who still has a one-time password (a bulk-created account) to the password change
page before anything else. One query per session: once the account is known to be clear, the
session remembers it."""
from django.shortcuts import redirect
from django.urls import reverse

from staffing.models import PasswordChangeRequired

CLEAR = "staffing-password-clear"


class PasswordChangeRequiredMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if (user is not None and not request.path.startswith(("/api/", "/static/")) and user.is_authenticated
                and request.session.get(CLEAR) != user.pk):
            if not PasswordChangeRequired.objects.filter(user=user).exists():
                request.session[CLEAR] = user.pk
            elif request.path not in (reverse("staffing-password-change"), reverse("logout")):
                return redirect(f"{reverse('staffing-password-change')}?next={request.path}")
        return self.get_response(request)
