"""Error answers (``handler400`` ... ``handler500``, ``CSRF_FAILURE_VIEW``): JSON ``{"detail": ...}`` under
/api/, as DRF answers its own errors, so an API client never has to parse a page; elsewhere the site's styled
templates (templates/400.html ... 500.html, 403_csrf.html)."""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import REASON_NO_CSRF_COOKIE
from django.shortcuts import render
from django.views import defaults


def _api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def bad_request(request, exception):
    if _api(request):
        return JsonResponse({"detail": "Bad request."}, status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request, exception):
    if _api(request):
        return JsonResponse({"detail": str(exception) or "You do not have permission to do this."}, status=403)
    return defaults.permission_denied(request, exception)


def page_not_found(request, exception):
    if _api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": "Server error; it has been logged."}, status=500)
    return defaults.server_error(request)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    # Django's own view renders a custom template without the reason; the page tells a blocked cookie apart.
    if _api(request):
        return JsonResponse({"detail": f"CSRF failed: {reason}"}, status=403)
    return render(request, "403_csrf.html", {"no_cookie": reason == REASON_NO_CSRF_COOKIE}, status=403)
