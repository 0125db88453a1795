"""Whether an account may hold an API token yet (listed in the CONCORD_TOKEN_REFUSALS setting)."""

from staffing.models import PasswordChangeRequired

ONE_TIME_PASSWORD = (
    "This account still has its one-time password: log in on the web page and choose a new password first."
)


def token_refusal_one_time_password(user) -> str | None:
    """A bulk-created account gets no token while it has its one-time password: it could keep it for good."""
    return ONE_TIME_PASSWORD if PasswordChangeRequired.objects.filter(user=user).exists() else None
