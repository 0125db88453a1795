"""Where the action being recorded comes from: the request's source (web page or API) and client
address, set by ``AuditRequestMiddleware`` for the request's duration. Outside a request (a command,
a job) there is none, and entries say ``command``."""
from contextvars import ContextVar
from dataclasses import dataclass


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
        # REMOTE_ADDR, not X-Forwarded-For: a client can write the header, not the socket's address.
        source = "api" if request.path.startswith("/api/") else "web"
        token = _origin.set(RequestOrigin(source=source, ip=request.META.get("REMOTE_ADDR") or None))
        try:
            return self.get_response(request)
        finally:
            _origin.reset(token)
