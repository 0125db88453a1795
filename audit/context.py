"""Where the action being recorded comes from: the request's source (web page or API) and client
address, set by ``AuditRequestMiddleware`` for the request's duration. Outside a request (a command,
a job) there is none, and entries say ``command``."""

from contextvars import ContextVar
from dataclasses import dataclass

from core.client_address import client_address


@dataclass(frozen=True)
class RequestOrigin:
    source: str
    ip: str | None


_origin: ContextVar[RequestOrigin | None] = ContextVar("audit_request_origin", default=None)


def request_origin() -> RequestOrigin | None:
    return _origin.get()


class AuditRequestMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # The address the trusted proxies report (CONCORD_TRUSTED_PROXIES), never one the client wrote.
        source = "api" if request.path.startswith("/api/") else "web"
        token = _origin.set(RequestOrigin(source=source, ip=client_address(request) or None))
        try:
            return self.get_response(request)
        finally:
            _origin.reset(token)
