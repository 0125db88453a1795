"""Error answers (``handler400`` ... ``handler500``): JSON ``{"detail": ...}`` under /api/, as DRF answers
its own errors, so an API client never has to parse a page; elsewhere Django's views render the site's
styled templates (templates/400.html ... 500.html; CSRF failures use 403_csrf.html)."""

from django.http import HttpRequest, HttpResponse, JsonResponse
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
