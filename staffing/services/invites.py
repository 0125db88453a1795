"""Invite links: creating and revoking them, and joining a project through one (safe under
concurrency)."""

import secrets
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.models import Membership, Project, RaterExclusion
from audit.services import audit_record
from staffing.models import Invite
from staffing.services import user_save_new

MAX_USES = 10_000
MAX_DAYS = 365
# The state of an invite to an archived project: whatever its own state, it admits no one until a restore.
ARCHIVED = "archived"


class InviteUnavailable(Exception):
    """The invite cannot be used: ``state`` says whether it expired, was revoked, is used up or its project is
    archived (ARCHIVED)."""

    def __init__(self, invite: Invite, state: str):
        super().__init__(
            "This invite's project is archived."
            if state == ARCHIVED
            else f"This invite is {Invite.State(state).label}."
        )
        self.invite = invite
        self.state = state


def invite_state(invite: Invite, now: datetime) -> str:
    """The invite's Invite.State at ``now``, or ARCHIVED when its project is archived."""
    return ARCHIVED if invite.project.is_archived else invite.state_at(now)


@transaction.atomic
def invite_create(*, project: Project, by, max_uses: int, valid_days: float) -> Invite:
    errors = {}
    if isinstance(max_uses, bool) or not isinstance(max_uses, int) or not 1 <= max_uses <= MAX_USES:
        errors["max_uses"] = f"a whole number from 1 to {MAX_USES}, got {max_uses!r}"
    if isinstance(valid_days, bool) or not isinstance(valid_days, int | float) or not 0 < valid_days <= MAX_DAYS:
        errors["valid_days"] = f"a number of days above 0 and at most {MAX_DAYS}, got {valid_days!r}"
    if errors:
        raise ValidationError(errors)
    invite = Invite.objects.create(
        project=project,
        token=secrets.token_urlsafe(32),
        max_uses=max_uses,
        expires_at=timezone.now() + timedelta(days=valid_days),
        created_by=by,
    )
    audit_record(
        actor=by,
        action="invite.create",
        project=project,
        target=f"invite {invite.pk}",
        detail={"max_uses": max_uses, "expires_at": invite.expires_at.isoformat()},
    )
    return invite


@transaction.atomic
def invite_revoke(*, invite: Invite, by) -> Invite:
    """Idempotent: revoking a revoked invite changes nothing and logs nothing."""
    invite = Invite.objects.select_for_update().get(pk=invite.pk)
    if invite.revoked_at is None:
        invite.revoked_at = timezone.now()
        invite.save(update_fields=["revoked_at"])
        audit_record(
            actor=by,
            action="invite.revoke",
            project=invite.project,
            target=f"invite {invite.pk}",
            detail={"n_used": invite.n_used, "max_uses": invite.max_uses},
        )
    return invite


def _locked_open_invite(token: str, now: datetime) -> Invite:
    # The row lock serialises every use of one invite, so a cap of N admits exactly N joiners.
    invite = Invite.objects.select_for_update().select_related("project").filter(token=token).first()
    if invite is None:
        raise Invite.DoesNotExist("No such invite.")
    state = invite_state(invite, now)
    if state != Invite.State.OPEN:
        raise InviteUnavailable(invite, state)
    return invite


@transaction.atomic
def invite_accept(*, token: str, user, now: datetime | None = None) -> tuple[Membership, bool]:
    """(the user's membership of the invite's project, whether it is new). A user already in the
    project uses up nothing. Raises Invite.DoesNotExist or InviteUnavailable."""
    return _join(_locked_open_invite(token, now or timezone.now()), user)


def _join(invite: Invite, user) -> tuple[Membership, bool]:
    membership = Membership.objects.filter(project=invite.project, user=user).first()
    if membership is not None:
        return membership, False
    # An excluded rater who left the team comes back paused, as the exclusion left them.
    excluded = RaterExclusion.objects.filter(project=invite.project, rater=user).exists()
    membership = Membership.objects.create(
        project=invite.project, user=user, role=Membership.Role.RATER, is_paused=excluded
    )
    invite.n_used += 1
    invite.save(update_fields=["n_used"])
    return membership, True


@transaction.atomic
def invite_signup(*, token: str, username: str, password: str, now: datetime | None = None):
    """A new account that joins the invite's project as a rater; nothing is created if the invite
    cannot be used or the username or password is refused (ValidationError by field)."""
    invite = _locked_open_invite(token, now or timezone.now())
    user = user_save_new(username=username, password=password)
    _join(invite, user)
    return user
