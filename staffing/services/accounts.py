"""Login accounts: one created by staff (the users API) or by an invite's sign-up, and rater accounts created in
bulk from a CSV, with one-time passwords their owners must change."""

import codecs
import csv
import io
import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction

from annotation.models import Membership, Project
from annotation.services.judgment_import import PSEUDONYM_PREFIX
from audit.services import audit_record
from core.outside_text import text_problem
from staffing.models import PasswordChangeRequired

# Each account costs one password hash (PBKDF2 at Django 5.2's iterations: 0.3-0.5 s a hash on 2 cores), and
# the upload is answered in its request: 40 accounts stay within a worker's 30 s timeout.
MAX_ACCOUNTS = 40
MAX_BYTES = 1_000_000
COLUMNS = ("username", "email")


@dataclass(frozen=True)
class Credential:
    username: str
    email: str
    password: str


class BulkRejected(Exception):
    """The file was refused whole; ``errors`` are (line number, message) pairs, the header being line 1."""

    def __init__(self, errors: list[tuple[int, str]]):
        super().__init__(f"{len(errors)} problem(s); no account was created")
        self.errors = errors


def _rows(stream) -> tuple[list[tuple[int, dict]], int]:
    """(line number, row) pairs, blank lines skipped, and the header's width."""
    data = stream.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise BulkRejected([(0, f"the file is larger than {MAX_BYTES // 1000} kB")])
    try:
        text = codecs.decode(data, "utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BulkRejected([(0, f"the file is not UTF-8 text ({exc.reason} at byte {exc.start})")]) from exc
    reader = csv.reader(io.StringIO(text, newline=""))  # quoted fields may hold line breaks
    try:
        return _read(reader)
    except csv.Error as exc:
        raise BulkRejected([(reader.line_num, f"not readable as CSV: {exc}")]) from exc


def _read(reader) -> tuple[list[tuple[int, dict]], int]:
    header = [name.strip().lower() for name in next(reader, [])]
    if "username" not in header:
        raise BulkRejected([(1, "the first line must be a header naming the columns: username, and optionally email")])
    unknown = [name for name in header if name not in COLUMNS]
    if unknown or len(set(header)) != len(header):
        raise BulkRejected([(1, f"the header may name only {', '.join(COLUMNS)}, each once; got {', '.join(header)}")])
    rows = []
    for values in reader:
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(header):
            rows.append((reader.line_num, {"_width": len(values)}))
        elif problem := next(
            (f"{name} {p}" for name, v in zip(header, values, strict=True) if (p := text_problem(v))), None
        ):
            rows.append((reader.line_num, {"_problem": problem}))
        else:
            rows.append((reader.line_num, {k: v.strip() for k, v in zip(header, values, strict=True)}))
    return rows, len(header)


def _errors(rows: list[tuple[int, dict]], width: int) -> list[tuple[int, str]]:
    User = get_user_model()
    errors, seen = [], {}
    names = [row.get("username", "") for _, row in rows if "_problem" not in row]
    email_length = User._meta.get_field("email").max_length
    existing = set(User.objects.filter(username__in=names).values_list("username", flat=True))
    for line, row in rows:
        if "_width" in row:
            errors.append((line, f"{row['_width']} values where the header has {width}"))
            continue
        if "_problem" in row:
            errors.append((line, row["_problem"]))
            continue
        username, email = row["username"], row.get("email", "")
        if not username:
            errors.append((line, "username is empty"))
            continue
        if username.startswith(PSEUDONYM_PREFIX):
            errors.append(
                (line, f"username {username!r}: names starting with {PSEUDONYM_PREFIX!r} are kept for imported raters")
            )
        try:
            User(username=username).clean_fields(exclude=[f.name for f in User._meta.fields if f.name != "username"])
        except ValidationError as exc:
            errors.append((line, f"username {username!r}: {' '.join(exc.messages)}"))
        if username in seen:
            errors.append((line, f"username {username!r} is also on line {seen[username]}"))
        else:
            seen[username] = line
        if username in existing:
            errors.append((line, f"username {username!r} is taken by an existing account"))
        if email:
            try:
                validate_email(email)
            except ValidationError:
                errors.append((line, f"email {email!r} is not a valid address"))
            else:
                if len(email) > email_length:  # a valid address may be longer than the column holds
                    errors.append((line, f"email {email[:40]!r}… is longer than {email_length} characters"))
    return errors


def user_save_new(*, username: str, password: str, is_staff: bool = False):
    """Saves a new login account after checking its username and its password against the configured
    validators; ValidationError by field (``username``, ``password``) otherwise, nothing saved."""
    if username.startswith(PSEUDONYM_PREFIX):
        raise ValidationError({"username": f"names starting with {PSEUDONYM_PREFIX!r} are kept for imported raters"})
    user = get_user_model()(username=username, is_staff=is_staff)
    try:
        user.full_clean(exclude=["password"])
    except ValidationError as exc:
        raise ValidationError({"username": exc.message_dict.get("username", exc.messages)}) from exc
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise ValidationError({"password": exc.messages}) from exc
    user.set_password(password)
    user.save()
    return user


@transaction.atomic
def user_create(*, username: str, password: str, is_staff: bool = False, by=None):
    """A login account; the password must pass the configured validators."""
    if get_user_model().objects.filter(username=username).exists():
        raise ValidationError({"username": f"a user named {username!r} exists already"})
    user = user_save_new(username=username, password=password, is_staff=is_staff)
    audit_record(actor=by, action="user.create", target=username, detail={"is_staff": is_staff})
    return user


@transaction.atomic
def accounts_bulk_create(*, project: Project, stream, by) -> list[Credential]:
    """Rater accounts of ``project`` for the CSV's rows, each with a random password it must change at
    its first login; all or nothing (BulkRejected, line-numbered). The passwords are returned once and
    only their hashes are stored."""
    rows, width = _rows(stream)
    if not rows:
        raise BulkRejected([(2, "no account: the file has a header but no rows")])
    if len(rows) > MAX_ACCOUNTS:
        raise BulkRejected([(rows[MAX_ACCOUNTS][0], f"more than {MAX_ACCOUNTS} accounts in one file")])
    errors = _errors(rows, width)
    if errors:
        raise BulkRejected(errors)
    User = get_user_model()
    credentials = []
    for _, row in rows:
        password = secrets.token_urlsafe(12)
        user = User(username=row["username"], email=row.get("email", ""))
        user.set_password(password)
        user.save()
        Membership.objects.create(project=project, user=user, role=Membership.Role.RATER)
        PasswordChangeRequired.objects.create(user=user)
        credentials.append(Credential(username=user.username, email=user.email, password=password))
    audit_record(
        actor=by,
        action="accounts.bulk_create",
        project=project,
        target=f"{len(credentials)} accounts",
        detail={"usernames": [c.username for c in credentials]},
    )
    return credentials


def password_change_done(*, user) -> None:
    PasswordChangeRequired.objects.filter(user=user).delete()
