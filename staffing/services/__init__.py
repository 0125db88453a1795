"""Every write path of the staffing app."""

from .accounts import (
    MAX_ACCOUNTS,
    BulkRejected,
    Credential,
    accounts_bulk_create,
    password_change_done,
    user_create,
    user_save_new,
)
from .external import (
    EntryRefused,
    ExternalLinkInvalid,
    entry_signature,
    external_link_configure,
    external_link_disable,
    external_link_new_secret,
    external_link_reset,
    external_worker_complete,
    external_worker_enter,
)
from .invite_emails import invite_email_deliver, invite_email_queue
from .invites import (
    ARCHIVED,
    InviteUnavailable,
    invite_accept,
    invite_create,
    invite_revoke,
    invite_signup,
    invite_state,
)
from .team import team_rater_remove
from .tokens import TokenRefused, token_issue

__all__ = [
    "MAX_ACCOUNTS",
    "BulkRejected",
    "Credential",
    "accounts_bulk_create",
    "password_change_done",
    "EntryRefused",
    "ExternalLinkInvalid",
    "entry_signature",
    "external_link_configure",
    "external_link_disable",
    "external_link_new_secret",
    "external_link_reset",
    "external_worker_complete",
    "external_worker_enter",
    "ARCHIVED",
    "InviteUnavailable",
    "invite_accept",
    "invite_create",
    "invite_email_deliver",
    "invite_email_queue",
    "invite_revoke",
    "invite_signup",
    "invite_state",
    "team_rater_remove",
    "TokenRefused",
    "token_issue",
    "user_create",
    "user_save_new",
]
