"""Stored agreement: one row per (project, window, week, scope, statistic), and the alerts they raise."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q, Subquery

from agreement.engine import names
from agreement.engine.names import MIN_RELIABLE_UNITS
from annotation.models import Criterion, Project

# Below this many pairable units the dashboard says a scope's interval cannot be trusted at its level: in
# tests/bench/bench_interval_coverage.py (BENCHMARKS.md) 95% bootstrap intervals of alpha covered 90-95%
# at 20-40 units, depending on the level and the method, and reached 93.5-94.5% at 100.
MIN_INTERVAL_UNITS = 100
# The statistic of the rows counting, per criterion, stored judgments left out as off their scale.
OFF_SCALE = "off_scale_judgments"


class SnapshotGeneration(models.Model):
    """Which generation of a project's snapshot rows readers see. A recompute writes its rows under a new
    generation beside the current one and then makes it current (one row's update), so readers see the old rows
    or the new ones, never a mix; rows of older generations are deleted after (agreement.services.generations)."""

    project = models.OneToOneField(
        Project, on_delete=models.CASCADE, primary_key=True, related_name="snapshot_generation"
    )
    current = models.PositiveBigIntegerField(default=0, help_text="The generation whose rows readers see.")
    last = models.PositiveBigIntegerField(default=0, help_text="The latest generation handed to a recompute.")

    def __str__(self):
        return f"project {self.project_id}: generation {self.current} of {self.last}"


class CurrentGeneration(models.Manager):
    """Only the rows of each project's current generation: the default manager, so no reader can forget it."""

    def get_queryset(self):
        return super().get_queryset().filter(generation=F("project__snapshot_generation__current"))

    def for_project(self, project_id: int):
        """One project's current rows, its generation looked up once (a subquery) instead of joined to every row:
        PostgreSQL then reads one table, and can take a MAX off an index, which it does not do over a join."""
        current = SnapshotGeneration.objects.filter(project_id=project_id).values("current")
        return super().get_queryset().filter(project_id=project_id, generation=Subquery(current))


class AgreementSnapshot(models.Model):
    """One figure of a project's agreement, in the generation of the recompute that wrote it."""

    class Window(models.TextChoices):
        WEEK = names.Window.WEEK, "Judgments submitted that ISO week"
        CUMULATIVE = names.Window.CUMULATIVE, "All judgments up to the end of that week"

    class Scope(models.TextChoices):
        OVERALL = names.Scope.OVERALL
        CRITERION = names.Scope.CRITERION
        SUBGROUP = names.Scope.SUBGROUP
        SUBGROUP_CRITERION = names.Scope.SUBGROUP_CRITERION
        PAIR = names.Scope.PAIR
        RATER = names.Scope.RATER

    class RatingUnit(models.TextChoices):
        CONVERSATION = names.RatingUnit.CONVERSATION, "the whole output"
        TURN = names.RatingUnit.TURN, "each assistant turn"

    class Status(models.TextChoices):
        OK = names.Status.OK
        INSUFFICIENT_DATA = names.Status.INSUFFICIENT_DATA

    window = models.CharField(max_length=12, choices=Window.choices)
    week_start = models.DateField(help_text="Monday of the ISO week.")
    scope = models.CharField(max_length=20, choices=Scope.choices)
    scope_key = models.CharField(max_length=200, help_text="Canonical scope id, unique per window, week, statistic.")
    # No per-column indexes on the FKs: snapshots are read by project and week (the unique index),
    # and a recompute rewrites hundreds of thousands of rows, each extra index slowing that down. Nor database
    # constraints on the criterion and raters: checked at commit, they took a third of the write (4 s of 11 for
    # 265,574 rows), for ids the recompute has just read; Django's on_delete still cascades.
    criterion = models.ForeignKey(
        Criterion,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    subgroup = models.CharField(max_length=100, blank=True)
    rater_a = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    rater_b = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    statistic = models.CharField(max_length=64)
    is_main = models.BooleanField(
        default=False, help_text="The scope's main coefficient (the one with a bootstrap CI)."
    )
    value = models.FloatField(null=True, blank=True)
    ci_low = models.FloatField(null=True, blank=True)
    ci_high = models.FloatField(null=True, blank=True)
    ci_method = models.CharField(
        max_length=16,
        blank=True,
        default="",
        help_text="What produced the interval: bca or percentile (bootstrap over units), "
        "analytic (the coefficient's standard error); empty without one.",
    )
    n_units = models.PositiveIntegerField(default=0)
    n_raters = models.PositiveIntegerField(default=0)
    n_pairable = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.OK)
    reason = models.CharField(max_length=300, blank=True)
    unreliable = models.BooleanField(default=False, help_text=f"Fewer than {MIN_RELIABLE_UNITS} units.")
    detail = models.JSONField(
        default=dict, blank=True, help_text="Extra structure, e.g. a coincidence matrix {values, matrix}."
    )
    computed_at = models.DateTimeField()
    # A project rating both ways has each figure twice, once over whole outputs and once over turns (never pooled).
    rating_unit = models.CharField(
        max_length=12,
        choices=RatingUnit.choices,
        default=RatingUnit.CONVERSATION,
        help_text="What the figure's units are: whole outputs, or single assistant turns (per-turn rating).",
    )

    # No index of its own (both indexes below lead with it) and no database constraint (Django still cascades):
    # PostgreSQL checked the constraint on every row at the recompute's commit, 1.3-1.5 s of 357,569 rows, for a
    # project whose row the recompute has just read.
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="agreement_snapshots", db_index=False, db_constraint=False
    )
    generation = models.PositiveBigIntegerField(
        default=0, help_text="The recompute that wrote the row; readers see the project's current one."
    )

    # every generation: for the writers and the clean-up of old ones (agreement.services.generations) only
    all_generations = models.Manager()
    objects = CurrentGeneration()

    class Meta:
        default_manager_name = "objects"  # what admin, related managers and dumpdata read
        ordering = ["week_start", "scope", "scope_key", "statistic"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "generation", "window", "week_start", "scope_key", "statistic"],
                name="snapshot_unique_per_generation",
            ),
            models.CheckConstraint(
                condition=Q(status="ok", value__isnull=False) | Q(status="insufficient_data", value__isnull=True),
                name="snapshot_value_iff_ok",
            ),
        ]
        indexes = [
            models.Index(fields=["project", "generation", "scope", "statistic"], name="snapshot_generation_scope")
        ]

    def __str__(self):
        return f"{self.statistic} {self.scope_key} {self.window} {self.week_start}: {self.value}"


class AgreementSettings(models.Model):
    """A project's alert rules for agreement."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="agreement_settings")
    alert_below = models.FloatField(default=0.4, help_text="Alert when a label's main coefficient falls below this.")
    alert_drop = models.FloatField(
        default=0.1,
        help_text="Alert when it falls by more than this from the week before and beyond the confidence interval.",
    )
    email_leads = models.BooleanField(default=True)
    auto_recompute_minutes = models.PositiveIntegerField(
        default=60,
        help_text="Recompute by itself when judgments came in since the last recompute, at most once in "
        "this many minutes (0: only on demand and on the weekly schedule).",
    )
    auto_recompute_started_at = models.DateTimeField(
        null=True, blank=True, help_text="When the last automatic recompute was started."
    )
    judgments_seen_through = models.PositiveBigIntegerField(
        default=0, help_text="The highest judgment id the last finished recompute read: any above it is new."
    )

    def __str__(self):
        return f"agreement settings of {self.project_id}"


class AgreementAlert(models.Model):
    class Kind(models.TextChoices):
        BELOW_THRESHOLD = "below_threshold"
        DROP = "drop"

    class Delivery(models.TextChoices):
        PENDING = "pending", "email not sent yet"
        SENT = "sent", "emailed"
        NOT_EMAILED = "not_emailed", "not emailed"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="agreement_alerts")
    criterion = models.ForeignKey(Criterion, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    week_start = models.DateField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    statistic = models.CharField(max_length=64)
    rating_unit = models.CharField(
        max_length=12, choices=AgreementSnapshot.RatingUnit.choices, default=AgreementSnapshot.RatingUnit.CONVERSATION
    )
    value = models.FloatField()
    previous_value = models.FloatField(null=True, blank=True)
    message = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)
    # The email to the leads, sent by a job after the alert is stored (agreement.services.alert_emails).
    delivery = models.CharField(max_length=16, choices=Delivery.choices, default=Delivery.PENDING)
    sent_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-week_start", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "criterion", "rating_unit", "week_start", "kind", "statistic"],
                name="alert_once_per_label_week_kind",
            ),
        ]
        indexes = [
            models.Index(fields=["delivery"], condition=models.Q(delivery="pending"), name="alert_pending_delivery")
        ]

    def __str__(self):
        return self.message
