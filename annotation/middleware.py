"""Answers 503 with Retry-After, not 500, while the database or the job broker is unreachable.

The request's transaction has been rolled back by then (ATOMIC_REQUESTS), so a client may safely
retry; rater-loop writes are idempotent by ``client_token``. The error is logged, never swallowed; the
answer names the failing part but not the driver's message, which carries host, port, user and database.
"""

import logging

from django.db import InterfaceError as DatabaseInterfaceError
from django.db import OperationalError as DatabaseOperationalError
from django.http import HttpResponse, JsonResponse
from kombu.exceptions import OperationalError as BrokerOperationalError

logger = logging.getLogger(__name__)

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
