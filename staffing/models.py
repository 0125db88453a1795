"""Who may join a project and how: invite links, the external-worker link and its workers, and the
accounts that must change their one-time password."""

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Q

from staffing.mail_errors import mail_error_words


class Invite(models.Model):
    """A link that makes whoever opens it a rater of the project, at most ``max_uses`` times, until
    ``expires_at`` or until a lead revokes it."""

    class State(models.TextChoices):
        OPEN = "open"
        EXPIRED = "expired"
        REVOKED = "revoked"
        USED_UP = "used_up", "used up"

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="invites")
    token = models.CharField(max_length=64, unique=True)
    max_uses = models.PositiveIntegerField(default=1, help_text="1 for a single-use link.")
    n_used = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(max_uses__gte=1), name="invite_max_uses_positive"),
            models.CheckConstraint(condition=Q(n_used__lte=F("max_uses")), name="invite_used_within_cap"),
        ]

    def __str__(self):
        return f"invite {self.pk} to project {self.project_id}"

    def state_at(self, now) -> str:
        if self.revoked_at is not None:
            return self.State.REVOKED
        if self.n_used >= self.max_uses:
            return self.State.USED_UP
        if self.expires_at <= now:
            return self.State.EXPIRED
        return self.State.OPEN


class InviteEmail(models.Model):
    """One email of an invite's link to one address, sent by a job after the request: pending until the mail
    server takes it (retried while it refuses), then sent, or failed with the server's last reason."""

    class Status(models.TextChoices):
        PENDING = "pending", "sending"
        SENT = "sent"
        FAILED = "failed"

    invite = models.ForeignKey(Invite, on_delete=models.CASCADE, related_name="emails")
    to = models.EmailField()
    url = models.URLField(max_length=500, help_text="The absolute link the email carries.")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=500, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"email of invite {self.invite_id} to {self.to}"

    @property
    def reason(self) -> str:
        """The last failure in words for a lead; ``last_error`` keeps the mail server's own text."""
        return mail_error_words(self.last_error)


class ExternalLink(models.Model):
    """The project's entry link for crowd workers (Prolific, MTurk) with the lead's guards against identity
    farming and the rule for the completion code; resetting it changes the token, turning it off keeps
    its settings for the next time it is turned on."""

    project = models.OneToOneField("annotation.Project", on_delete=models.CASCADE, related_name="external_link")
    token = models.CharField(max_length=64, unique=True)
    is_enabled = models.BooleanField(default=True)
    max_identities = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Worker ids the link may admit in all (new ones are refused after); empty: no cap.",
    )
    max_identities_per_address = models.PositiveIntegerField(
        null=True, blank=True, help_text="Worker ids the link may admit from one client address; empty: no cap."
    )
    prolific_study_id = models.CharField(
        max_length=64,
        blank=True,
        help_text="When set, entries must carry Prolific's PROLIFIC_PID, this STUDY_ID "
        "and a SESSION_ID, and a session admits one worker id.",
    )
    signing_secret = models.CharField(
        max_length=64,
        blank=True,
        help_text="When set, entries must carry sig = HMAC-SHA256(secret, worker id) in "
        "hex, which only a platform holding the secret can make.",
    )
    return_url = models.URLField(
        max_length=500,
        blank=True,
        help_text="Where a worker the qualification gate keeps out goes back to their "
        "platform (for Prolific, the study's screened-out link); it must not "
        "carry the completion code. Empty: no link is shown.",
    )
    min_judged_screens = models.PositiveIntegerField(
        default=1, help_text="Screens a worker must have judged to be shown the completion code."
    )
    max_screens_per_worker = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="The batch: screens each worker admitted from now on is served at most (their own maximum, kept "
        "if this changes later); empty: the project's.",
    )
    max_unjudged_share = models.FloatField(
        default=0.2,
        help_text="Share of the screens a worker was offered that they may flag or let lapse and still "
        "be shown the completion code.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(max_unjudged_share__gte=0, max_unjudged_share__lte=1),
                name="externallink_unjudged_share_in_unit_interval",
            ),
            models.CheckConstraint(condition=Q(min_judged_screens__gte=1), name="externallink_min_judged_positive"),
            models.CheckConstraint(
                condition=Q(max_screens_per_worker__isnull=True) | Q(max_screens_per_worker__gte=1),
                name="externallink_batch_quota_positive",
            ),
        ]

    def __str__(self):
        return f"external link of project {self.project_id}"


class ExternalWorker(models.Model):
    """A crowd worker's pseudonymous rater account in one project, with the completion code they are
    shown once nothing is left for them to judge."""

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="external_workers")
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="external_worker")
    worker_id = models.CharField(max_length=64)
    completion_code = models.CharField(max_length=16, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True, help_text="When the worker first saw their code.")
    address_key = models.CharField(
        max_length=64,
        blank=True,
        help_text="A keyed hash of the client address of the first entry (the address "
        "itself is not stored), for the per-address cap.",
    )
    platform_session = models.CharField(max_length=64, blank=True, help_text="Prolific's SESSION_ID of the entry.")

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "worker_id"], name="externalworker_unique_in_project"),
            models.UniqueConstraint(
                fields=["project", "platform_session"],
                condition=~Q(platform_session=""),
                name="externalworker_one_per_platform_session",
            ),
        ]
        indexes = [models.Index(fields=["project", "address_key"], name="externalworker_address")]

    def __str__(self):
        return f"worker {self.worker_id} in project {self.project_id}"


class PasswordChangeRequired(models.Model):
    """The account still has the one-time password it was created with."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="password_change_required"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.user_id} must change their password"
