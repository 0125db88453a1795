"""The project's own middleware.

``OutsideTextMiddleware`` refuses, with a 400 that names it, a request whose URL path, query parameters or
form fields hold text core.outside_text refuses, before any view or filter hands it to the database.
Checked here, once, rather than by each filter and form: views read query parameters in many places
(search boxes, list filters, page numbers), and one missed parameter was a 500. JSON bodies are checked by
the API serializers (DRF's CharField refuses NUL and surrogates; core.api_fields for nested JSON) and
import files by the importers, with line numbers.

``ServiceUnavailableMiddleware`` answers 503 with Retry-After, not 500, while the database or the job broker
is unreachable. The request's transaction has been rolled back by then (ATOMIC_REQUESTS), so a client may
safely retry; rater-loop writes are idempotent by ``client_token``. The error is logged, never swallowed; the
answer names the failing part but not the driver's message, which carries host, port, user and database.
"""

import logging

from django.db import InterfaceError as DatabaseInterfaceError
from django.db import OperationalError as DatabaseOperationalError
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from kombu.exceptions import OperationalError as BrokerOperationalError

from .outside_text import OutsideValueError, check_text

logger = logging.getLogger(__name__)

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _check_request(request) -> None:
    check_text(request.path_info, field="the URL path")
    for name, values in request.GET.lists():
        check_text(name, field="a query parameter name")
        for value in values:
            check_text(value, field=f"query parameter {name!r}")
    if request.method == "POST" and request.content_type in FORM_TYPES:
        # Form parsing happens here rather than in CsrfViewMiddleware a moment later; nothing else changes.
        for name, values in request.POST.lists():
            check_text(name, field="a form field name")
            for value in values:
                check_text(value, field=f"form field {name!r}")
        for name, upload in request.FILES.items():
            check_text(upload.name or "", field=f"the name of the file in {name!r}")


class OutsideTextMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            _check_request(request)
        except OutsideValueError as exc:
            detail = f"{str(exc)[0].upper()}{str(exc)[1:]}."
            if request.path_info.startswith("/api/"):
                return JsonResponse({"detail": detail, "field": exc.field}, status=400)
            return render(request, "core/bad_input.html", {"detail": detail}, status=400)
        return self.get_response(request)


# Seconds a client is told to wait: a PostgreSQL restart or a broker failover takes a few seconds.
RETRY_AFTER_SECONDS = 5
UNAVAILABLE = {
    DatabaseOperationalError: "The database is unavailable",
    DatabaseInterfaceError: "The database is unavailable",
    BrokerOperationalError: "The job queue is unavailable; the job was not started",
}


class ServiceUnavailableMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        what = next((message for cls, message in UNAVAILABLE.items() if isinstance(exception, cls)), None)
        if what is None:
            return None
        logger.error("%s %s: %s: %s", request.method, request.path, what, exception)
        detail = f"{what}; retry in {RETRY_AFTER_SECONDS} s."
        if request.path.startswith("/api/"):
            response = JsonResponse({"detail": detail}, status=503)
        else:
            response = HttpResponse(detail, status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
