"""The client's address as the trusted proxies report it.

``CONCORD_TRUSTED_PROXIES`` (DRF's ``NUM_PROXIES``) proxies in front each append the address they saw to
X-Forwarded-For, so the client's is that many entries from the right; whatever stands further left was
written by the client. With 0 the header is ignored and the socket's address (REMOTE_ADDR) is used.
DRF's throttles key on this rule; the login lockout (django-axes) and the audit log use the same one.
"""

from django.http import HttpRequest
from rest_framework.throttling import BaseThrottle


def client_address(request: HttpRequest) -> str:
    return BaseThrottle().get_ident(request)
