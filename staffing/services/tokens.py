"""Handing out API tokens, unless an app refuses the account (CONCORD_TOKEN_REFUSALS)."""

from django.conf import settings
from django.utils.module_loading import import_string
from rest_framework.authtoken.models import Token


class TokenRefused(Exception):
    """An app refused the account a token; the message says why, to the user."""


def token_issue(*, user) -> Token:
    """The user's API token, created on first use.

    Each callable named in CONCORD_TOKEN_REFUSALS takes the user and answers a reason to refuse, or
    None; the first reason raises TokenRefused, and a token the user held already is deleted with it.
    """
    for path in settings.CONCORD_TOKEN_REFUSALS:
        reason = import_string(path)(user)
        if reason:
            Token.objects.filter(user=user).delete()
            raise TokenRefused(reason)
    token, _ = Token.objects.get_or_create(user=user)
    return token
