"""Token authentication for the rater loop: DRF's TokenAuthentication with the key looked up in one
SQL statement. The ORM lookup was a fifth of the loop's web CPU (BENCHMARKS.md, "Rater loop");
the answers are the same: an unknown key or an inactive user is a 401."""

from django.contrib.auth import get_user_model
from django.db import connection
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed

# The user fields the rater views read; the others load on access.
USER_FIELDS = ("id", "is_superuser", "username", "is_staff", "is_active")


class RaterLoopTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key):
        User = get_user_model()
        fields = tuple(f.attname for f in User._meta.concrete_fields if f.attname in USER_FIELDS)
        q = connection.ops.quote_name
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {', '.join('u.' + q(f) for f in fields)} FROM {q(User._meta.db_table)} u "
                f"JOIN {q(Token._meta.db_table)} t ON t.user_id = u.{q(User._meta.pk.column)} "
                f"WHERE t.{q('key')} = %s",
                [key],
            )
            row = cursor.fetchone()
        if row is None:
            raise AuthenticationFailed("Invalid token.")
        user = User.from_db(
            connection.alias, fields, [bool(v) if f.startswith("is_") else v for f, v in zip(fields, row, strict=True)]
        )
        if not user.is_active:
            raise AuthenticationFailed("User inactive or deleted.")
        return user, Token(key=key, user=user)


class RaterLoopTokenScheme(OpenApiAuthenticationExtension):
    """The same header as DRF's token scheme, under its own name in the schema (one name, one class)."""

    target_class = RaterLoopTokenAuthentication
    name = "raterTokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": 'Token-based authentication with required prefix "Token" (same tokens as tokenAuth)',
        }
