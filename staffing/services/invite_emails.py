"""Emailing an invite's link: the request validates and stores the email, a job sends it after the commit
(retried while the mail server refuses), and the invites page shows whether it went out, in words
(staffing.mail_errors); the mail server's own message goes to the log."""

import logging

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from audit.services import audit_record
from core.job_queue import queued_job
from staffing.models import Invite, InviteEmail

SEND_JOB = "staffing.jobs.invite_email_send_job"

logger = logging.getLogger(__name__)


@transaction.atomic
def invite_email_queue(*, invite: Invite, to: str, url: str, by) -> InviteEmail:
    """Stores an email of the invite's link (``url``, absolute) to ``to`` and sends it from a job once the
    transaction commits. Raises ValidationError on ``email`` when invite emails are off
    (CONCORD_INVITE_EMAILS), the address is not one, or the invite no longer admits anyone.

    ``robust``: a broker that is down must not fail the request; the email stays pending on the page."""
    if not settings.CONCORD_INVITE_EMAILS:
        raise ValidationError({"email": "Invite emails are off on this installation: set EMAIL_URL to a mail server."})
    try:
        validate_email(to)
    except ValidationError as exc:
        raise ValidationError({"email": f"{to!r} is not an email address."}) from exc
    state = invite.state_at(timezone.now())
    if state != Invite.State.OPEN:
        raise ValidationError({"email": f"This invite is {Invite.State(state).label.lower()}; create a new one."})
    email = InviteEmail.objects.create(invite=invite, to=to, url=url, created_by=by)
    audit_record(
        actor=by, action="invite.email", project=invite.project, target=f"invite {invite.pk}", detail={"to": to}
    )
    transaction.on_commit(lambda: queued_job(SEND_JOB).delay(email.pk), robust=True)
    return email


def invite_email_deliver(*, email_id: int, last_try: bool) -> str:
    """Sends one pending invite email and answers its status. The row stays locked until it is marked sent, so
    a redelivered job finds it sent and sends nothing. An invite revoked or expired meanwhile is not sent
    (failed, saying so). A refused or unreachable server records the attempt and its reason and is raised
    again for the job to retry; on the ``last_try`` the email is marked failed instead."""
    with transaction.atomic():
        email = InviteEmail.objects.select_for_update().select_related("invite__project").get(pk=email_id)
        if email.status != InviteEmail.Status.PENDING:
            return email.status
        invite, project = email.invite, email.invite.project
        state = invite.state_at(timezone.now())
        if state != Invite.State.OPEN:
            email.status = InviteEmail.Status.FAILED
            email.last_error = f"the invite was {Invite.State(state).label.lower()} before the email went out"
            email.save(update_fields=["status", "last_error"])
            return email.status
        body = (
            f"You are invited to rate texts in the study “{project.name}” on Concord.\n\n"
            f"Open this link to join (sign up or log in first): {email.url}\n\n"
            f"The link works until {invite.expires_at:%Y-%m-%d %H:%M} UTC."
        )
        try:
            # a header holds no newline
            send_mail(f"Invitation: {' '.join(project.name.split())}", body, None, [email.to])
        except OSError as exc:  # refused connections and every smtplib error
            refused = exc
            status = InviteEmail.Status.FAILED if last_try else InviteEmail.Status.PENDING
            logger.warning("invite email %s not sent (%s): %s: %s", email.pk, status, type(exc).__name__, exc)
            InviteEmail.objects.filter(pk=email.pk).update(
                attempts=F("attempts") + 1, status=status, last_error=f"{type(exc).__name__}: {exc}"[:500]
            )
        else:
            refused, status = None, InviteEmail.Status.SENT
            InviteEmail.objects.filter(pk=email.pk).update(
                status=status, sent_at=timezone.now(), attempts=F("attempts") + 1, last_error=""
            )
    if refused is not None and not last_try:
        raise refused  # after the commit, so the attempt and its reason are kept
    return status
