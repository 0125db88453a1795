"""Celery jobs of the staffing app; each loads by id and calls one service."""

from celery import shared_task
from django.conf import settings

from staffing.services import invite_email_deliver
from staffing.services.invite_emails import SEND_JOB


@shared_task(
    name=SEND_JOB, bind=True, acks_late=True, ignore_result=True, max_retries=settings.CONCORD_INVITE_EMAIL_RETRIES
)
def invite_email_send_job(self, email_id: int) -> str:
    """Email one invite link; while the mail server refuses, retry after 1, 2, 4... x the backoff."""
    try:
        return invite_email_deliver(email_id=email_id, last_try=self.request.retries >= self.max_retries)
    except OSError as exc:
        raise self.retry(exc=exc, countdown=settings.CONCORD_INVITE_EMAIL_BACKOFF * 2**self.request.retries) from exc
