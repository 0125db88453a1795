"""Every non-trivial read of the staffing app."""

from .completion import CompletionStanding, completion_standing
from .invites import invite_email_counts, invite_get_by_token, invite_get_for_project, invite_list_for_project
from .passwords import token_refusal_one_time_password
from .team import team_list_for_project

__all__ = [
    "CompletionStanding",
    "completion_standing",
    "invite_email_counts",
    "invite_get_by_token",
    "invite_get_for_project",
    "invite_list_for_project",
    "team_list_for_project",
    "token_refusal_one_time_password",
]
