"""The external-worker entry (crowd platforms such as Prolific or MTurk): the project's link and the
lead's guards on it (identity caps, Prolific's study and session, a signed entry), the pseudonymous
account each worker id gets, and the completion code shown when they are done."""

import hashlib
import hmac
import re
import secrets

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac

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


# The address is kept only as a keyed hash: enough to count entries per address, useless to anyone who
# reads the table without the site's SECRET_KEY.
ADDRESS_SALT = "concord.staffing.entry-address"
# The settings a lead edits on the crowd-link page (the signing secret has its own switch).
LINK_SETTINGS = (
    "max_identities",
    "max_identities_per_address",
    "prolific_study_id",
    "return_url",
    "min_judged_screens",
    "max_screens_per_worker",
    "max_unjudged_share",
)


class ExternalLinkInvalid(Exception):
    """No such link: the token is wrong, reset, or the entry is switched off."""


class EntryRefused(Exception):
    """The link is right but does not admit this entry (a cap is reached, the platform's study or signature
    does not match); the message says why, to the worker."""


@transaction.atomic
def external_link_reset(*, project: Project, by) -> ExternalLink:
    """The project's external link, on, with a new token (the old link stops working); its settings stay."""
    link, created = ExternalLink.objects.update_or_create(
        project=project, defaults={"token": secrets.token_urlsafe(24), "is_enabled": True, "created_by": by}
    )
    audit_record(
        actor=by,
        action="external_link.create" if created else "external_link.reset",
        project=project,
        target="external link",
    )
    return link


@transaction.atomic
def external_link_disable(*, project: Project, by) -> None:
    """Turns the link off; its token is replaced, so the old link never works again, and its settings are kept."""
    if ExternalLink.objects.filter(project=project, is_enabled=True).update(
        is_enabled=False, token=secrets.token_urlsafe(24)
    ):
        audit_record(actor=by, action="external_link.disable", project=project, target="external link")


@transaction.atomic
def external_link_configure(*, project: Project, by, signed: bool | None = None, **fields) -> ExternalLink:
    """Sets the link's guards and completion rule (LINK_SETTINGS); ``signed`` switches the signed entry on
    (a new secret, unless it has one) or off. Raises ValidationError by field, nothing changed."""
    unknown = set(fields) - set(LINK_SETTINGS)
    if unknown:
        raise ValidationError({"settings": f"unknown settings {sorted(unknown)}; they are {list(LINK_SETTINGS)}"})
    link = ExternalLink.objects.select_for_update().filter(project=project).first()
    if link is None:
        raise ValidationError({"link": "create the link first"})
    if fields.get("prolific_study_id"):
        fields["prolific_study_id"] = fields["prolific_study_id"].strip()
        if not WORKER_ID.fullmatch(fields["prolific_study_id"]):
            raise ValidationError({"prolific_study_id": "a Prolific study id is letters and digits (24 hex digits)"})
    changed = {name: [getattr(link, name), value] for name, value in fields.items() if getattr(link, name) != value}
    for name, value in fields.items():
        setattr(link, name, value)
    if signed is not None and signed != bool(link.signing_secret):
        link.signing_secret = secrets.token_hex(32) if signed else ""
        changed["signed_entry"] = [not signed, signed]  # never the secret itself
    link.full_clean(exclude=["project", "created_by", "token"])
    link.save()
    if changed:
        audit_record(
            actor=by,
            action="external_link.configure",
            project=project,
            target="external link",
            detail={"changed": changed},
        )
    return link


@transaction.atomic
def external_link_new_secret(*, project: Project, by) -> ExternalLink:
    """A new signing secret for a link with the signed entry on (entries signed with the old one are refused)."""
    link = ExternalLink.objects.select_for_update().filter(project=project).exclude(signing_secret="").first()
    if link is None:
        raise ValidationError({"signed": "the signed entry is off: switch it on first"})
    link.signing_secret = secrets.token_hex(32)
    link.save(update_fields=["signing_secret"])
    audit_record(actor=by, action="external_link.new_secret", project=project, target="external link")
    return link


def entry_signature(secret: str, worker_id: str) -> str:
    """What a signing platform passes as ``sig``: HMAC-SHA256 of the worker id under the link's secret, in hex."""
    return hmac.new(secret.encode(), worker_id.encode(), hashlib.sha256).hexdigest()


def _address_key(address: str) -> str:
    return salted_hmac(ADDRESS_SALT, address, algorithm="sha256").hexdigest() if address else ""


def worker_id_check(worker_id: str) -> str:
    if not WORKER_ID.fullmatch(worker_id or ""):
        raise ValidationError({"worker_id": "a worker id is 1 to 64 letters, digits, '-' or '_'"})
    return worker_id


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _worker_create(
    project: Project, worker_id: str, address_key: str, session: str, max_screens: int | None
) -> ExternalWorker:
    User = get_user_model()
    for _ in range(ATTEMPTS):
        try:
            with transaction.atomic():
                # The account's name says nothing of the worker id, so no other rater can learn it.
                user = User(username=f"worker-{secrets.token_hex(6)}")
                user.set_unusable_password()
                user.save()
                # The link's batch quota is the worker's own: changing it later leaves theirs alone.
                Membership.objects.create(
                    project=project, user=user, role=Membership.Role.RATER, max_screens=max_screens
                )
                return ExternalWorker.objects.create(
                    project=project,
                    user=user,
                    worker_id=worker_id,
                    completion_code=_new_code(),
                    address_key=address_key,
                    platform_session=session,
                )
        except IntegrityError:
            # The same worker entering twice at once, or (hardly ever) a username or code drawn twice.
            found = ExternalWorker.objects.filter(project=project, worker_id=worker_id).first()
            if found is not None:
                return found
    raise RuntimeError(f"no unique account after {ATTEMPTS} attempts")


def _platform_check(
    link: ExternalLink, *, worker_id: str, prolific_pid: str, study_id: str, session_id: str, signature: str
) -> tuple[str, str]:
    """(the worker id, the platform session) of an entry the link's platform checks admit; ValidationError
    for a missing or malformed parameter, EntryRefused for a study or signature that does not match."""
    session = ""
    if link.prolific_study_id:
        missing = [
            name
            for name, value in (("PROLIFIC_PID", prolific_pid), ("STUDY_ID", study_id), ("SESSION_ID", session_id))
            if not value
        ]
        if missing:
            raise ValidationError({"entry": f"this study is entered from Prolific only; {', '.join(missing)} missing"})
        for name, value in (("PROLIFIC_PID", prolific_pid), ("SESSION_ID", session_id)):
            if not WORKER_ID.fullmatch(value):
                raise ValidationError({"entry": f"{name} is 1 to 64 letters, digits, '-' or '_'"})
        if not secrets.compare_digest(study_id, link.prolific_study_id):
            raise EntryRefused("This link belongs to another Prolific study.")
        worker_id, session = prolific_pid, session_id
    worker_id_check(worker_id)
    if link.signing_secret:
        if not signature:
            raise ValidationError({"sig": "this study needs a signed entry (sig) from the platform"})
        if not secrets.compare_digest(signature.lower(), entry_signature(link.signing_secret, worker_id)):
            raise EntryRefused("The entry's signature does not match: open the study again from the platform.")
    return worker_id, session


def _admit_new(link: ExternalLink, worker_id: str, session: str, address_key: str) -> ExternalWorker:
    """A new worker, if the link's caps admit one more."""
    ExternalLink.objects.select_for_update().filter(pk=link.pk).first()  # count the caps one entry at a time
    found = ExternalWorker.objects.select_related("user").filter(project=link.project, worker_id=worker_id).first()
    if found is not None:
        return found
    workers = ExternalWorker.objects.filter(project=link.project)
    if session and workers.filter(platform_session=session).exists():
        raise EntryRefused("This Prolific session has started already, under another participant id.")
    if link.max_identities is not None and workers.count() >= link.max_identities:
        raise EntryRefused("This study has admitted all the participants it takes.")
    if (
        link.max_identities_per_address is not None
        and address_key
        and workers.filter(address_key=address_key).count() >= link.max_identities_per_address
    ):
        raise EntryRefused("This study admits no more participants from your network.")
    return _worker_create(link.project, worker_id, address_key, session, link.max_screens_per_worker)


@transaction.atomic
def external_worker_enter(
    *,
    project_id: int,
    token: str,
    worker_id: str = "",
    prolific_pid: str = "",
    study_id: str = "",
    session_id: str = "",
    signature: str = "",
    address: str = "",
) -> ExternalWorker:
    """The worker's record (created on first entry, with a rater account and a completion code).

    ``worker_id`` names the worker (``prolific_pid`` when the link takes Prolific entries, with
    ``study_id`` and ``session_id``); ``signature`` is the platform's ``sig``; ``address`` the client
    address, for the per-address cap. Raises ExternalLinkInvalid for a wrong token, ValidationError for
    a missing or malformed parameter, EntryRefused when the project is archived or the link's checks or caps refuse
    the entry. The
    caps count new worker ids only: a worker coming back always resumes.
    """
    link = ExternalLink.objects.select_related("project").filter(project_id=project_id, is_enabled=True).first()
    if link is None or not secrets.compare_digest(link.token, token):
        raise ExternalLinkInvalid("No such link.")
    if link.project.is_archived:
        raise EntryRefused("This study is archived: it takes no participants now. Please return to the platform.")
    worker_id, session = _platform_check(
        link,
        worker_id=worker_id or prolific_pid,
        prolific_pid=prolific_pid,
        study_id=study_id,
        session_id=session_id,
        signature=signature,
    )
    worker = ExternalWorker.objects.select_related("user").filter(
        project=link.project, worker_id=worker_id
    ).first() or _admit_new(link, worker_id, session, _address_key(address))
    if not Membership.objects.filter(project=link.project, user=worker.user).exists():
        raise ExternalLinkInvalid("A lead removed this worker from the project.")
    return worker


def external_worker_complete(*, worker: ExternalWorker) -> ExternalWorker:
    """Notes when the worker first saw their code; the code itself never changes."""
    if worker.completed_at is None:
        ExternalWorker.objects.filter(pk=worker.pk, completed_at__isnull=True).update(completed_at=timezone.now())
        worker.refresh_from_db(fields=["completed_at"])
    return worker
