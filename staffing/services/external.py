"""The external-worker entry (crowd platforms such as Prolific or MTurk): the project's link, the
pseudonymous account each worker id gets, and the completion code shown when they are done."""
import re
import secrets

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.models import Membership, Project
from audit.services import audit_record
from staffing.models import ExternalLink, ExternalWorker

# Prolific ids are 24 hex digits, MTurk worker ids about 14 capitals and digits; this admits both and
# nothing that could be markup or a path.
WORKER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
# No 0/O or 1/I: the code is read off the screen and typed into the platform.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 10  # 32**10 ≈ 1e15 codes: a collision is retried, and guessing one is hopeless
ATTEMPTS = 5


class ExternalLinkInvalid(Exception):
    """No such link: the token is wrong, reset, or the entry is switched off."""


@transaction.atomic
def external_link_reset(*, project: Project, by) -> ExternalLink:
    """The project's external link with a new token (the old link stops working)."""
    link, created = ExternalLink.objects.update_or_create(
        project=project, defaults={"token": secrets.token_urlsafe(24), "created_by": by})
    audit_record(actor=by, action="external_link.create" if created else "external_link.reset", project=project,
                 target="external link")
    return link


@transaction.atomic
def external_link_disable(*, project: Project, by) -> None:
    deleted, _ = ExternalLink.objects.filter(project=project).delete()
    if deleted:
        audit_record(actor=by, action="external_link.disable", project=project, target="external link")


def worker_id_check(worker_id: str) -> str:
    if not WORKER_ID.fullmatch(worker_id or ""):
        raise ValidationError({"worker_id": "a worker id is 1 to 64 letters, digits, '-' or '_'"})
    return worker_id


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _worker_create(project: Project, worker_id: str) -> ExternalWorker:
    User = get_user_model()
    for _ in range(ATTEMPTS):
        try:
            with transaction.atomic():
                # The account's name says nothing of the worker id, so no other rater can learn it.
                user = User(username=f"worker-{secrets.token_hex(6)}")
                user.set_unusable_password()
                user.save()
                Membership.objects.create(project=project, user=user, role=Membership.Role.RATER)
                return ExternalWorker.objects.create(project=project, user=user, worker_id=worker_id,
                                                     completion_code=_new_code())
        except IntegrityError:
            # The same worker entering twice at once, or (hardly ever) a username or code drawn twice.
            found = ExternalWorker.objects.filter(project=project, worker_id=worker_id).first()
            if found is not None:
                return found
    raise RuntimeError(f"no unique account after {ATTEMPTS} attempts")


@transaction.atomic
def external_worker_enter(*, project_id: int, token: str, worker_id: str) -> ExternalWorker:
    """The worker's record (created on first entry, with a rater account and a completion code).
    Raises ExternalLinkInvalid for a wrong token, ValidationError for a malformed worker id."""
    link = ExternalLink.objects.select_related("project").filter(project_id=project_id).first()
    if link is None or not secrets.compare_digest(link.token, token):
        raise ExternalLinkInvalid("No such link.")
    worker_id_check(worker_id)
    worker = (ExternalWorker.objects.select_related("user").filter(project=link.project, worker_id=worker_id).first()
              or _worker_create(link.project, worker_id))
    if not Membership.objects.filter(project=link.project, user=worker.user).exists():
        raise ExternalLinkInvalid("A lead removed this worker from the project.")
    return worker


def external_worker_complete(*, worker: ExternalWorker) -> ExternalWorker:
    """Notes when the worker first saw their code; the code itself never changes."""
    if worker.completed_at is None:
        ExternalWorker.objects.filter(pk=worker.pk, completed_at__isnull=True).update(completed_at=timezone.now())
        worker.refresh_from_db(fields=["completed_at"])
    return worker
