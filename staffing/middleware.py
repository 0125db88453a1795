"""Sends a user who still has a one-time password (a bulk-created account) to the password change
page before anything else.

The check costs a query only on a successful login through the login page; the session then carries the
obligation until the change. The API's token endpoint refuses such an account outright (403), so the
one-time password cannot be kept for API use either.
"""
import json

from django.http import JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from rest_framework.authtoken.models import Token

from staffing.models import PasswordChangeRequired

MUST_CHANGE = "staffing-must-change-password"


class PasswordChangeRequiredMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST" and request.path == reverse("api-token"):
            return self._token_unless_one_time_password(request)
        change = reverse("staffing-password-change")
        if (request.session.get(MUST_CHANGE) and not request.path.startswith("/api/")
                and request.path not in (change, reverse("logout"))):
            return redirect(f"{change}?next={request.path}")
        response = self.get_response(request)
        if (request.method == "POST" and request.path == reverse("login") and request.user.is_authenticated
                and PasswordChangeRequired.objects.filter(user=request.user).exists()):
            request.session[MUST_CHANGE] = True
        return response

    def _token_unless_one_time_password(self, request):
        """The endpoint answers first (its throttle and credential check stay as they are); only a token it
        issued to an account still on its one-time password is taken back."""
        username = _posted_username(request)  # read before the view consumes the body
        response = self.get_response(request)
        if response.status_code == 200 and username is not None:
            required = PasswordChangeRequired.objects.filter(user__username=username).select_related("user").first()
            if required is not None:
                Token.objects.filter(user=required.user).delete()
                return JsonResponse({"detail": "This account still has its one-time password: log in on the web "
                                               "page and choose a new password first."}, status=403)
        return response



def _posted_username(request) -> str | None:
    try:
        credentials = json.loads(request.body or b"{}") if request.content_type == "application/json" else request.POST
        username = credentials.get("username")
    except (ValueError, AttributeError):
        return None
    return username if isinstance(username, str) else None
