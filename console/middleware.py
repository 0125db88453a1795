"""Keeps an archived project read-only everywhere: a write (POST, PUT, PATCH, DELETE) to a route under
``projects/<pk>/`` of an archived project is refused with the reason. Pages get a redirect to the project
page saying why (their scripts, asking for JSON, a 409); the API gets a 409 from the DRF permission
ArchivedProjectReadOnly, since its token-authenticated user is known only inside the view. Restoring and
deleting are the exceptions.

One check at the door rather than in each of the dozens of write views and services, so that a route
added later is covered too. The rater loop's routes are left to the rater checks of
annotation.services.assignment, which refuse an archived project themselves, so that the hottest request
costs no extra query.
"""

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import redirect
from rest_framework.exceptions import APIException
from rest_framework.permissions import BasePermission

from console.selectors.projects import project_is_archived_for
from console.services.project_lifecycle import ARCHIVED_READ_ONLY

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
PROJECT_ROUTE = "projects/<int:pk>/"
EXEMPT = {
    "console-project-restore",
    "console-project-delete",
    "api-project-restore",
    "api-project-delete",
    "api-next",
    "rate-next",
}


def _write_to_project(request) -> bool:
    match = request.resolver_match
    return (
        request.method not in SAFE_METHODS
        and match is not None
        and PROJECT_ROUTE in match.route
        and match.url_name not in EXEMPT
    )


class ProjectArchived(APIException):
    status_code = 409
    default_detail = ARCHIVED_READ_ONLY
    default_code = "project_archived"


class ArchivedProjectReadOnly(BasePermission):
    """REST_FRAMEWORK's default permission beside IsAuthenticated: the API's half of the rule above."""

    def has_permission(self, request, view):
        if _write_to_project(request) and project_is_archived_for(request.user, view.kwargs["pk"]):
            raise ProjectArchived()
        return True


class ArchivedProjectReadOnlyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.path.startswith("/api/") or not _write_to_project(request):
            return None
        if not project_is_archived_for(request.user, view_kwargs["pk"]):
            return None
        if "application/json" in request.headers.get("Accept", ""):
            return JsonResponse({"detail": ARCHIVED_READ_ONLY}, status=409)
        messages.error(request, ARCHIVED_READ_ONLY)
        return redirect("project-detail", pk=view_kwargs["pk"])
