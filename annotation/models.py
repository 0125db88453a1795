"""Projects and everything raters judge: criteria, members, items, outputs, assignments, judgments."""

import functools
import math
import operator
import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q

from annotation.task_types import REGISTRY

TaskType = models.TextChoices("TaskType", [(slug.upper(), (slug, t.label)) for slug, t in REGISTRY.items()])
# The task types whose projects may set a modulus (the field keeps its first type's name).
MODULUS_TYPES = [slug for slug, t in REGISTRY.items() if t.takes_modulus]
# The task types whose projects may rate a conversation output turn by turn (TaskType.rates_turns).
TURN_TYPES = [slug for slug, t in REGISTRY.items() if t.rates_turns]


class Project(models.Model):
    class RatingUnit(models.TextChoices):
        CONVERSATION = "conversation", "the whole output"
        TURN = "turn", "every assistant turn of the output"
        BOTH = "both", "every assistant turn and the whole output"

    class Status(models.TextChoices):
        DRAFT = "draft"
        LIVE = "live"
        PAUSED = "paused"
        CLOSED = "closed"

    name = models.CharField(max_length=200)
    task_type = models.CharField(max_length=16, choices=TaskType.choices)
    instructions = models.TextField(blank=True)
    raters_per_item = models.PositiveSmallIntegerField(default=1)
    double_annotation_share = models.FloatField(
        default=0.0, help_text="Share of items judged by raters_per_item raters; the rest get one rater."
    )
    gold_rate = models.FloatField(default=0.0, help_text="Share of screens that show a gold item.")
    lease_seconds = models.PositiveIntegerField(default=900)
    show_reference = models.BooleanField(default=False)
    randomise_output_order = models.BooleanField(
        default=True,
        help_text="Likert and RankME: show each rater the outputs in a fresh random order (else as "
        "imported). Pairwise always balances the sides.",
    )
    repeat_rate = models.FloatField(
        default=0.0,
        help_text="Share of screens that repeat an item the rater judged some screens before "
        "(a repeat copy; pairwise with the sides swapped).",
    )
    training_items = models.PositiveSmallIntegerField(
        default=0,
        help_text="Each rater's first screens: items of the training pool (gold items imported with "
        '"training": true) answered with feedback (the expected answer and the item\'s '
        "meta.explanation); they count in no accuracy, and no gold item used for checking is "
        "ever shown in training.",
    )
    training_pass_mark = models.FloatField(
        default=0.0,
        db_default=0.0,
        help_text="The qualification gate: the share of training items a rater must answer right (a flagged one "
        "counts as wrong) to be admitted to the real work; 0 turns the gate off.",
    )
    n_degraded = models.PositiveIntegerField(
        default=0,
        db_default=0,
        help_text="Degraded copies made; while there are any, the lease mixes them in at random positions.",
    )
    rankme_modulus = models.FloatField(
        null=True,
        blank=True,
        help_text="RankME only: each screen first shows the item's (first) reference with this fixed score, and "
        "outputs are scored relative to it with any positive number (magnitude estimation). "
        "Empty: sliders over the criterion's range.",
    )
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.LIVE)
    # Allocation (annotation.services.allocation): quotas, and the design that spreads the work over raters.
    max_screens_per_rater = models.PositiveIntegerField(
        null=True, blank=True, help_text="Screens (control screens included) a rater is served at most; empty: no cap."
    )
    expected_screens_per_rater = models.PositiveIntegerField(
        null=True, blank=True, help_text="Screens a rater is expected to do (what they are told and paid for)."
    )
    planned_raters = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Raters the design spreads the work over; empty: as many as the maximum "
        "screens per rater needs, or no design without a maximum.",
    )
    min_pair_overlap = models.PositiveSmallIntegerField(
        default=0, db_default=0, help_text="Units each pair of raters planned to overlap should share at least."
    )
    replan_excluded_judgments = models.BooleanField(
        default=False,
        db_default=False,
        help_text="When a rater is excluded, the items they judged want one more "
        "rater (their judgments no longer count).",
    )
    vacated_hold_minutes = models.PositiveIntegerField(
        default=60,
        db_default=60,
        help_text="Minutes a vacated place's shared units wait for the rater who takes the "
        "place over before raters with quota left may take them; 0: at once.",
    )
    plan_size = models.PositiveSmallIntegerField(
        default=0, db_default=0, help_text="Places in the design now applied to the items (0: no design)."
    )
    plan_masks = models.JSONField(
        default=list,
        db_default=[],
        blank=True,
        editable=False,
        help_text="The distinct masks of the design now applied to the items, ascending (the lease reads each "
        "place's items mask by mask).",
    )
    plan_claimed_mask = models.BigIntegerField(
        default=0,
        db_default=0,
        help_text="Places of the design some rater has taken (bit p for place p); those no "
        "rater holds now are vacated: their work goes to the next rater who joins "
        "once every place has been taken, and to raters with quota left (shared "
        "units after vacated_hold_minutes).",
    )
    plan_vacated_at = models.JSONField(
        default=dict,
        blank=True,
        db_default={},
        help_text="When each vacated place was last vacated: place (a string) to an ISO 8601 time.",
    )
    # Adjudication (annotation.services.adjudication): items whose raters disagree go to a queue.
    adjudicate = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Items whose current judgments disagree under the rule join the adjudication queue.",
    )
    adjudication_threshold = models.FloatField(
        null=True,
        blank=True,
        help_text="The rule: values of one output on one criterion further apart than this disagree; empty: any "
        "difference (task types whose values are categories, e.g. pairwise outcomes, take none).",
    )
    profile_consent = models.TextField(
        blank=True,
        default="",
        db_default="",
        help_text="The consent text of the rater profile form; set (with the project's ProfileField rows), every "
        "rater answers the form before their first screen, and one who declines is served nothing.",
    )
    task_config = models.JSONField(
        default=dict,
        blank=True,
        db_default={},
        help_text="Settings only the task type reads (e.g. an error-span project's typology and weights), "
        "normalised by the task type.",
    )
    rating_unit = models.CharField(
        max_length=12,
        choices=RatingUnit.choices,
        default=RatingUnit.CONVERSATION,
        db_default=RatingUnit.CONVERSATION,
        help_text="What each criterion is asked of: the whole output, or (outputs that are conversations, task "
        "types that rate turns) each of its assistant turns, or both.",
    )
    archived_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Archived: hidden from the home list and read-only (no item served, no "
        "judgment or change taken) until a lead restores it; the status stays.",
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["created_by", "name"],
                name="project_name_unique_per_owner",
                violation_error_message="You already have a project with this name; choose another.",
            ),
            models.CheckConstraint(condition=Q(raters_per_item__gte=1), name="project_raters_per_item_positive"),
            models.CheckConstraint(
                condition=Q(planned_raters__isnull=True) | Q(planned_raters__gte=1, planned_raters__lte=62),
                name="project_planned_raters_in_range",
            ),
            models.CheckConstraint(
                condition=Q(double_annotation_share__gte=0, double_annotation_share__lte=1),
                name="project_double_share_in_unit_interval",
            ),
            models.CheckConstraint(condition=Q(gold_rate__gte=0, gold_rate__lt=1), name="project_gold_rate_below_one"),
            models.CheckConstraint(
                condition=Q(repeat_rate__gte=0, repeat_rate__lt=1), name="project_repeat_rate_below_one"
            ),
            models.CheckConstraint(condition=Q(task_type__in=TaskType.values), name="project_task_type_known"),
            models.CheckConstraint(
                condition=Q(training_pass_mark__gte=0, training_pass_mark__lte=1),
                name="project_training_pass_mark_in_unit_interval",
            ),
            models.CheckConstraint(
                condition=Q(rankme_modulus__isnull=True) | Q(rankme_modulus__gt=0),
                name="project_rankme_modulus_positive",
            ),
            models.CheckConstraint(
                condition=Q(rankme_modulus__isnull=True)
                | functools.reduce(operator.or_, (Q(task_type=s) for s in MODULUS_TYPES)),
                name="project_rankme_modulus_only_rankme",
            ),
            models.CheckConstraint(
                condition=Q(rating_unit="conversation") | Q(task_type__in=TURN_TYPES),
                name="project_rating_unit_only_turn_types",
            ),
        ]

    def __str__(self):
        return self.name

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None

    def clean(self):
        if self.rankme_modulus is None:
            return
        if self.task_type not in MODULUS_TYPES:
            raise ValidationError(
                {
                    "rankme_modulus": f"only a {' or '.join(MODULUS_TYPES)} project takes a modulus; "
                    f"this one is "
                    f"{self.task_type!r}"
                }
            )
        if not (math.isfinite(self.rankme_modulus) and self.rankme_modulus > 0):
            raise ValidationError({"rankme_modulus": f"must be a positive finite number, got {self.rankme_modulus!r}"})


class Criterion(models.Model):
    """One question asked per output (likert, rankme) or per pair (pairwise), with its scale."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="criteria")
    name = models.CharField(max_length=100)
    position = models.PositiveSmallIntegerField(default=0)
    scale_min = models.FloatField(null=True, blank=True)
    scale_max = models.FloatField(null=True, blank=True)
    labels = models.JSONField(default=list, blank=True, help_text="One label per scale point, lowest first.")
    help_text = models.TextField(blank=True)

    class Meta:
        ordering = ["project_id", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="criterion_name_unique_in_project"),
            models.CheckConstraint(
                condition=Q(scale_min__isnull=True) | Q(scale_max__isnull=True) | Q(scale_min__lt=F("scale_max")),
                name="criterion_scale_min_below_max",
            ),
        ]

    def __str__(self):
        return self.name


def order_seed_new() -> int:
    """A fresh seed for a rater's item order."""
    return secrets.randbits(62)


class Membership(models.Model):
    class Role(models.TextChoices):
        LEAD = "lead"
        RATER = "rater"
        # served the adjudication queue only: no work screens, quotas, controls or place in agreement
        ADJUDICATOR = "adjudicator"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    external_name = models.CharField(
        max_length=150, blank=True, help_text="Rater id from an imported study (pseudonymous account, no login)."
    )
    is_paused = models.BooleanField(default=False)
    training_done = models.PositiveIntegerField(default=0, help_text="Training screens this rater has answered.")
    left_balance = models.JSONField(
        default=dict,
        blank=True,
        help_text="Pairwise: per system, times shown left minus times shown right to this rater.",
    )
    max_screens = models.PositiveIntegerField(
        null=True, blank=True, help_text="This rater's own maximum of screens; empty: the project's."
    )
    expected_screens = models.PositiveIntegerField(
        null=True, blank=True, help_text="This rater's own expected screens; empty: the project's."
    )
    plan_position = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The rater's place in the project's design, taken on their first screen."
    )
    order_seed = models.BigIntegerField(
        default=order_seed_new,
        help_text="Seed of the order this rater is served work items in (annotation.services.assignment).",
    )
    screens_counted = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="While a quota applies: at least the screens this rater was served (expired leases drop out at "
        "the next recount, annotation.services.assignment); empty: not counted yet.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "plan_position"],
                condition=Q(plan_position__isnull=False),
                name="membership_one_rater_per_plan_position",
            ),
            models.UniqueConstraint(fields=["project", "user"], name="membership_unique_user_in_project"),
            models.UniqueConstraint(
                fields=["project", "external_name"],
                condition=~Q(external_name=""),
                name="membership_unique_external_name_in_project",
            ),
        ]

    def __str__(self):
        return f"{self.user} ({self.role}) in {self.project_id}"


class ProfileField(models.Model):
    """A question of the project's rater profile form (e.g. native language, age band)."""

    class Kind(models.TextChoices):
        CHOICE = "choice"
        TEXT = "text"
        NUMBER = "number"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="profile_fields")
    name = models.CharField(max_length=100)
    position = models.PositiveSmallIntegerField(default=0)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    choices = models.JSONField(default=list, blank=True, help_text="kind choice: the answers offered, in order.")
    required = models.BooleanField(default=False)
    sensitive = models.BooleanField(
        default=False, help_text="Left out of every export unless the lead asks for it in that export."
    )

    class Meta:
        ordering = ["project_id", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="profile_field_name_unique_in_project"),
            models.CheckConstraint(condition=Q(kind__in=["choice", "text", "number"]), name="profile_field_kind_known"),
        ]

    def __str__(self):
        return self.name


class RaterProfile(models.Model):
    """A rater's consent and answers to the project's profile form, kept against their membership (the
    account is named nowhere else: exports and breakdowns use the rater's pseudonym)."""

    membership = models.OneToOneField(Membership, on_delete=models.CASCADE, related_name="profile")
    consented = models.BooleanField()
    answers = models.JSONField(default=dict, blank=True, help_text="Field name → answer; empty when declined.")
    answered_at = models.DateTimeField()

    def __str__(self):
        return f"profile of membership {self.membership_id}"


class Item(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="items")
    external_id = models.CharField(max_length=255)
    input = models.TextField()
    turns = models.JSONField(
        null=True,
        blank=True,
        help_text="A conversation input: its turns [{role, text}] (annotation.conversations); "
        "``input`` then holds their plain-text rendering. Null: plain text.",
    )
    references = models.JSONField(default=list, blank=True)
    subgroup = models.CharField(max_length=100, blank=True, default="")
    meta = models.JSONField(default=dict, blank=True)
    gold = models.JSONField(null=True, blank=True, help_text="Expected answers, normalised by the task type.")
    training = models.BooleanField(
        default=False,
        db_default=False,
        help_text="A gold item of the training pool: served only in training, with feedback, never as a gold check.",
    )
    degraded_from = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="degraded_copies",
        help_text="A quality-control copy of this item with damaged outputs (served as an ordinary item; never "
        "counted in agreement or results).",
    )
    repeat_of = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="repeats",
        help_text="A quality-control repeat of this item, served only to raters who judged it some screens "
        "before (n_target 0: never in the queues); never counted in agreement or results.",
    )
    n_target = models.PositiveSmallIntegerField(
        default=1, help_text="Raters wanted for this item (raters_per_item for the double-annotated share, else 1)."
    )
    n_judged = models.PositiveIntegerField(default=0, help_text="Distinct raters with a judgment on this item.")
    n_leased = models.PositiveIntegerField(
        default=0,
        db_default=0,
        help_text="Assignments still active (leased, not yet judged); the assignment services keep it exact.",
    )
    plan_mask = models.BigIntegerField(
        default=0,
        db_default=0,
        help_text="The places of the project's design this item is planned for (bit p for "
        "place p); 0: open to every rater.",
    )
    retired_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Retired: no longer served to raters; its judgments are kept and marked "
        "as from a retired item in results and exports.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "external_id"], name="item_external_id_unique_in_project"),
            models.CheckConstraint(condition=~Q(external_id=""), name="item_external_id_not_empty"),
        ]
        indexes = [
            models.Index(fields=["project", "subgroup"], name="item_project_subgroup"),
            models.Index(fields=["project", "n_judged"], name="item_project_open", condition=Q(gold__isnull=True)),
            # The two queues of assignment_next_for_rater: items started by someone and not yet full,
            # then untouched items, each walked in id order. The key is ``id + 0``, and the queue queries
            # order by it, so that the planner cannot walk the primary key instead: it would, guessing a
            # project's items spread evenly through all ids, and scan every other project's items first.
            models.Index(
                F("project"),
                F("id") + 0,
                name="item_started_open",
                condition=Q(gold__isnull=True, n_target__gt=F("n_judged") + F("n_leased"))
                & (Q(n_judged__gt=0) | Q(n_leased__gt=0)),
            ),
            models.Index(
                F("project"),
                F("id") + 0,
                name="item_untouched",
                condition=Q(gold__isnull=True, n_judged=0, n_leased=0, n_target__gt=0),
            ),
            # The same queues by mask, for a designed project: a rater's own items are read mask by mask (those of
            # their place), not picked out of every place's rows in id order.
            models.Index(
                F("project"),
                F("plan_mask"),
                F("id") + 0,
                name="item_started_open_by_mask",
                condition=Q(gold__isnull=True, n_target__gt=F("n_judged") + F("n_leased"))
                & (Q(n_judged__gt=0) | Q(n_leased__gt=0)),
            ),
            models.Index(
                F("project"),
                F("plan_mask"),
                F("id") + 0,
                name="item_untouched_by_mask",
                condition=Q(gold__isnull=True, n_judged=0, n_leased=0, n_target__gt=0),
            ),
        ]

    def __str__(self):
        return self.external_id

    @property
    def is_gold(self) -> bool:
        return self.gold is not None

    @property
    def is_retired(self) -> bool:
        return self.retired_at is not None


class Output(models.Model):
    """A system's generated text for an item; ``position`` is its order in the imported line."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="outputs")
    position = models.PositiveSmallIntegerField()
    system = models.CharField(max_length=200)
    text = models.TextField()
    turns = models.JSONField(
        null=True,
        blank=True,
        help_text="A whole conversation as the output: its turns [{role, text}]; ``text`` "
        "then holds their plain-text rendering. Null: plain text (e.g. a next turn).",
    )

    class Meta:
        ordering = ["item_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["item", "position"], name="output_position_unique_in_item"),
            models.UniqueConstraint(fields=["item", "system"], name="output_system_unique_in_item"),
        ]
        indexes = [models.Index(fields=["system"], name="output_system")]

    def __str__(self):
        return f"{self.system}@{self.item_id}"


class Assignment(models.Model):
    """A lease of one item to one rater; ``shown_order`` lists output positions as displayed."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        DONE = "done"
        EXPIRED = "expired"
        SKIPPED = "skipped"  # the rater flagged the item and moved on; it is not served to them again

    class ServedAs(models.TextChoices):
        WORK = "work"
        TRAINING = "training"
        GOLD = "gold"  # a gold check, after training
        REPEAT = "repeat"
        DEGRADED = "degraded"

    # No index of its own: assignment_rater_status (project, rater, status) leads with the project, and a
    # second, project-only index tempts PostgreSQL to scan a project's every assignment when its
    # statistics underestimate a young project (the rater loop's look-ups; BENCHMARKS.md, "Rater loop").
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.ACTIVE)
    shown_order = models.JSONField(default=list)
    served_as = models.CharField(
        max_length=8,
        choices=ServedAs.choices,
        default=ServedAs.WORK,
        db_default=ServedAs.WORK,
        help_text="What the screen was when it was leased, fixed then (a revision does not move training).",
    )
    served_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    completed_at = models.DateTimeField(null=True, blank=True)
    sampling_probability = models.FloatField(
        null=True,
        blank=True,
        help_text="Adaptive allocation: the probability with which this screen's pair of "
        "systems was drawn (annotation.services.adaptive_allocation); null otherwise.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["item", "rater"], condition=~Q(status="expired"), name="assignment_one_live_per_item_and_rater"
            ),
        ]
        indexes = [
            models.Index(fields=["project", "rater", "status"], name="assignment_rater_status"),
            models.Index(fields=["item", "status"], name="assignment_item_status"),
            models.Index(
                fields=["project", "expires_at"], name="assignment_active_expiry", condition=Q(status="active")
            ),
        ]

    def __str__(self):
        return f"assignment {self.pk}: item {self.item_id} to {self.rater_id}"


class Judgment(models.Model):
    """One value given by one rater to one output on one criterion; rows are never updated but for
    ``is_current``, which a revision clears on the row it replaces.

    For ``pairwise`` the row belongs to the item's first output (position 0) and ``value`` codes its
    outcome: 0 it loses, 1 tie, 2 it wins; ``label`` keeps the winner's system name or "tie".
    """

    class Source(models.TextChoices):
        RATER = "rater"
        IMPORT = "import"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="judgments")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="judgments")
    output = models.ForeignKey(Output, on_delete=models.CASCADE, related_name="judgments")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="judgments")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="judgments")
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.SET_NULL, related_name="judgments"
    )
    turn = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Per-turn rating: the index (from 0) of the judged assistant turn in the output's turns; "
        "null: the value is for the whole output.",
    )
    value = models.FloatField()
    label = models.CharField(max_length=200, blank=True, default="")
    shown_order = models.JSONField(default=list, blank=True, help_text="Systems in the order the rater saw them.")
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.RATER)
    client_token = models.CharField(max_length=64, blank=True, default="")
    served_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    is_current = models.BooleanField(default=True)
    sampling_probability = models.FloatField(
        null=True,
        blank=True,
        help_text="The probability with which the judged pair was drawn (adaptive "
        "allocation, or imported); results weight the judgment by its inverse.",
    )

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["output", "criterion", "rater"],
                condition=Q(is_current=True, turn__isnull=True),
                name="judgment_one_current_per_output_criterion_rater",
            ),
            models.UniqueConstraint(
                fields=["output", "turn", "criterion", "rater"],
                condition=Q(is_current=True, turn__isnull=False),
                name="judgment_one_current_per_turn_criterion_rater",
            ),
            models.CheckConstraint(
                condition=Q(sampling_probability__isnull=True)
                | Q(sampling_probability__gt=0, sampling_probability__lte=1),
                name="judgment_sampling_probability_in_unit_interval",
            ),
        ]
        indexes = [
            models.Index(fields=["project", "submitted_at"], name="judgment_project_time"),
            models.Index(fields=["project", "rater"], name="judgment_project_rater"),
            models.Index(fields=["assignment", "client_token"], name="judgment_assignment_token"),
        ]

    def __str__(self):
        return f"judgment {self.pk}"

    def clean(self):
        if self.output_id and self.item_id and self.output.item_id != self.item_id:
            raise ValidationError({"output": "The output belongs to another item."})


class AdaptiveAllocationState(models.Model):
    """The cached allocation probabilities of a project with adaptive allocation (its task type's
    ``task_config["adaptive"]``), recomputed by a debounced job, never per request
    (annotation.services.adaptive_allocation)."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, primary_key=True, related_name="adaptive_state")
    probabilities = models.JSONField(
        default=list, blank=True, help_text="[system, system, probability] per pair of systems (names sorted)."
    )
    judgments_through = models.BigIntegerField(
        default=0, help_text="The newest judgment id the probabilities were computed from."
    )
    n_judgments = models.PositiveIntegerField(default=0, help_text="Judgments they were computed from.")
    computed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"adaptive allocation of project {self.project_id}"


class AdjudicationCase(models.Model):
    """An item whose raters disagreed under the project's adjudication rule, queued for one adjudicator's
    answer (AdjudicatedValue rows; the raw judgments never change). One per item, ever: an adjudicated
    item never joins the queue again."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="adjudication_cases")
    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="adjudication_case")
    criteria = models.JSONField(default=list, help_text="Names of the criteria whose values disagreed.")
    opened_at = models.DateTimeField()
    seed = models.BigIntegerField(
        default=order_seed_new, help_text="Seed of the order the raters' answers are shown in, unnamed."
    )
    held_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The adjudicator the case is leased to.",
    )
    held_until = models.DateTimeField(null=True, blank=True)
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="adjudications"
    )
    adjudicated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(
                fields=["project", "id"], name="adjudication_case_open", condition=Q(adjudicated_at__isnull=True)
            )
        ]

    def __str__(self):
        return f"adjudication of item {self.item_id}"


class AdjudicatedValue(models.Model):
    """The adjudicator's answer for one output (pairwise: the first) on one criterion, coded as judgments are; in a
    project rating per turn, one per assistant turn too (``turn``)."""

    case = models.ForeignKey(AdjudicationCase, on_delete=models.CASCADE, related_name="values")
    output = models.ForeignKey(Output, on_delete=models.CASCADE, related_name="+")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="+")
    turn = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="The assistant turn answered (its index in the output's turns) in a project rating per turn; "
        "null for the whole output.",
    )
    value = models.FloatField()
    label = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["case_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["case", "output", "criterion"],
                condition=Q(turn__isnull=True),
                name="adjudicated_value_one_per_output_criterion",
            ),
            models.UniqueConstraint(
                fields=["case", "output", "criterion", "turn"],
                condition=Q(turn__isnull=False),
                name="adjudicated_value_one_per_output_criterion_turn",
            ),
        ]

    def __str__(self):
        return f"adjudicated {self.value:g} on output {self.output_id}"


class AdjudicatedSpan(models.Model):
    """An error span of an adjudicated answer (ESA, MQM), offsets and sides as in ErrorSpan. ``origin`` says how
    the adjudicator answered the raters' spans, pooled and unnamed on their screen: one kept as marked
    (accepted), changed (edited) or rejected (kept with its offsets; not an error of the answer), or one the
    adjudicator added."""

    value = models.ForeignKey(AdjudicatedValue, on_delete=models.CASCADE, related_name="spans")
    side = models.CharField(max_length=8, choices=[("target", "target"), ("source", "source")], default="target")
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    severity = models.CharField(max_length=32)
    category = models.CharField(max_length=200, blank=True, default="")
    origin = models.CharField(
        max_length=8, choices=[(o, o) for o in ("added", "accepted", "edited", "rejected")], default="added"
    )

    class Meta:
        ordering = ["value_id", "side", "start", "end", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(end__gte=F("start")), name="adjudicated_span_end_not_before_start")
        ]

    def __str__(self):
        return f"adjudicated {self.severity} [{self.start}, {self.end})"


class ErrorSpan(models.Model):
    """One error span of an error-span judgment (ESA, MQM): ``[start, end)`` in Unicode code points of the
    judged output's text as imported (``side`` "target"), or of the item's input (``side`` "source", a
    source-side error). ``start == end`` marks something missing at that point. ``origin`` says where the
    span came from: a model's proposal the rater accepted as it was, edited, or rejected (kept, with the
    proposal's offsets, so that the proposals' precision can be measured), or one the rater added."""

    class Side(models.TextChoices):
        TARGET = "target"
        SOURCE = "source"

    class Origin(models.TextChoices):
        ADDED = "added"
        ACCEPTED = "accepted"
        EDITED = "edited"
        REJECTED = "rejected"

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="error_spans")
    proposal = models.ForeignKey(
        "ProposedSpan",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The model's proposal this span answers, if any.",
    )
    side = models.CharField(max_length=8, choices=Side.choices, default=Side.TARGET)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    severity = models.CharField(max_length=32)
    category = models.CharField(
        max_length=200, blank=True, default="", help_text="MQM: typology path, e.g. 'Accuracy/Mistranslation'."
    )
    origin = models.CharField(max_length=8, choices=Origin.choices, default=Origin.ADDED)

    class Meta:
        ordering = ["judgment_id", "side", "start", "end", "id"]
        constraints = [models.CheckConstraint(condition=Q(end__gte=F("start")), name="error_span_end_not_before_start")]

    def __str__(self):
        return f"{self.severity} [{self.start}, {self.end}) of judgment {self.judgment_id}"


class ProposedSpan(models.Model):
    """An error span a model proposed for an output before any rater saw it (ESA-AI): imported with the item,
    shown to every rater of the output to confirm, edit or reject; offsets as in ErrorSpan."""

    output = models.ForeignKey(Output, on_delete=models.CASCADE, related_name="proposed_spans")
    side = models.CharField(max_length=8, choices=ErrorSpan.Side.choices, default=ErrorSpan.Side.TARGET)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    severity = models.CharField(max_length=32)
    category = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["output_id", "side", "start", "end", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(end__gte=F("start")), name="proposed_span_end_not_before_start")
        ]

    def __str__(self):
        return f"proposed {self.severity} [{self.start}, {self.end}) of output {self.output_id}"


class ItemFlag(models.Model):
    """A rater's report that an item cannot be judged as it is; it is not a judgment."""

    class Reason(models.TextChoices):
        BROKEN = "broken", "Broken or unreadable"
        OFFENSIVE = "offensive", "Offensive content"
        CANNOT_JUDGE = "cannot_judge", "I cannot judge this"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="flags")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="flags")
    assignment = models.ForeignKey(Assignment, null=True, blank=True, on_delete=models.SET_NULL, related_name="flags")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="item_flags")
    reason = models.CharField(max_length=16, choices=Reason.choices)
    comment = models.TextField(blank=True, max_length=2000)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(reason__in=["broken", "offensive", "cannot_judge"]), name="itemflag_reason_known"
            ),
        ]
        indexes = [models.Index(fields=["project", "created_at"], name="itemflag_project_time")]

    def __str__(self):
        return f"{self.reason} flag on item {self.item_id}"


class QcRules(models.Model):
    """One version of a project's quality-control rules. Versions are frozen once the project has
    judgments: an edit then stores a new version, so every automatic action names the rules it applied."""

    class Action(models.TextChoices):
        WARN = "warn"
        PAUSE = "pause"
        EXCLUDE = "exclude"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="qc_rules")
    version = models.PositiveIntegerField()
    min_gold_answered = models.PositiveIntegerField(
        default=5, help_text="Gold items a rater must have answered before the accuracy rule judges them."
    )
    gold_accuracy_threshold = models.FloatField(
        default=0.7, help_text="Share of gold answers that must be right (0 turns the rule off)."
    )
    action = models.CharField(max_length=8, choices=Action.choices, default=Action.WARN)
    min_seconds_per_judgment = models.FloatField(
        default=0.0, help_text="Screens answered faster are flagged (0 turns the rule off)."
    )
    straight_line_run = models.PositiveIntegerField(
        default=0, help_text="This many screens in a row with the same answers are flagged (0 turns the rule off)."
    )
    min_degraded_answered = models.PositiveIntegerField(
        default=5, help_text="Degraded copies a rater must have judged before the degraded-control rule judges them."
    )
    degraded_p_threshold = models.FloatField(
        default=0.0,
        help_text="The rule fires when the one-sided test that damaged copies score lower gives a "
        "p-value above this (0 turns the rule off).",
    )
    control_flag_share = models.FloatField(
        default=0.5,
        help_text="The rule fires when a rater flagged more than this share of the control screens "
        "(training, gold, repeat, degraded) served to them, once min_gold_answered were "
        "served (0 turns the rule off).",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project_id", "version"]
        constraints = [
            models.UniqueConstraint(fields=["project", "version"], name="qcrules_version_unique_in_project"),
            models.CheckConstraint(
                condition=Q(gold_accuracy_threshold__gte=0, gold_accuracy_threshold__lte=1),
                name="qcrules_threshold_in_unit_interval",
            ),
            models.CheckConstraint(condition=Q(min_seconds_per_judgment__gte=0), name="qcrules_min_seconds_nonneg"),
            models.CheckConstraint(
                condition=Q(control_flag_share__gte=0, control_flag_share__lte=1),
                name="qcrules_control_flag_share_in_unit_interval",
            ),
            models.CheckConstraint(condition=Q(action__in=["warn", "pause", "exclude"]), name="qcrules_action_known"),
        ]

    def __str__(self):
        return f"QC rules v{self.version} of project {self.project_id}"


class RaterAction(models.Model):
    """The log of quality control: a warning, pause, resume, exclusion or inclusion of one rater, taken by
    a rule (``rules`` + ``rule`` + ``evidence``) or by a lead by hand (``by`` + ``reason``)."""

    class Kind(models.TextChoices):
        WARN = "warn"
        PAUSE = "pause"
        RESUME = "resume"
        EXCLUDE = "exclude"
        INCLUDE = "include"
        GATE = "gate", "not admitted"  # the qualification gate kept the rater from the real work
        ADMIT = "admit", "admitted"  # a lead let them in after all

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="rater_actions")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="qc_actions")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    rules = models.ForeignKey(QcRules, null=True, blank=True, on_delete=models.PROTECT, related_name="actions")
    rule = models.CharField(max_length=32, blank=True, help_text="Which rule fired (empty for a lead's action).")
    evidence = models.JSONField(default=dict, blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reason = models.TextField(blank=True, max_length=2000)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=["warn", "pause", "resume", "exclude", "include", "gate", "admit"]),
                name="rateraction_kind_known",
            ),
        ]
        indexes = [models.Index(fields=["project", "rater", "created_at"], name="rateraction_project_rater")]

    def __str__(self):
        return f"{self.kind} of {self.rater_id} in {self.project_id}"


class RaterExclusion(models.Model):
    """Quality control leaves this rater's judgments out of agreement, results and exports until a lead
    includes them again. Kept apart from the membership, which removing the rater from the team deletes:
    adding them back must not bring their judgments back."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="rater_exclusions")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="qc_exclusions")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["project_id", "rater_id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "rater"], name="raterexclusion_one_per_rater_in_project"),
        ]

    def __str__(self):
        return f"{self.rater_id} excluded from {self.project_id}"


class QualificationOutcome(models.Model):
    """A rater's result on their training screens against the project's pass mark (the qualification gate),
    decided once, when their last training screen is answered or flagged. A rater who failed is served no
    real work, and has no answer taken, until a lead admits them. Kept apart from the membership, as an
    exclusion is: leaving the team and joining again changes nothing."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="qualification_outcomes")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="qualifications")
    n_screens = models.PositiveIntegerField(help_text="Training screens served (answered or flagged).")
    n_right = models.PositiveIntegerField(help_text="Of them, answered right on first answer (every gold value).")
    pass_mark = models.FloatField(help_text="The project's pass mark when the outcome was decided.")
    passed = models.BooleanField()
    decided_at = models.DateTimeField()
    admitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    admitted_at = models.DateTimeField(null=True, blank=True, help_text="When a lead admitted a rater who failed.")

    class Meta:
        ordering = ["project_id", "rater_id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "rater"], name="qualification_one_per_rater_in_project"),
            models.CheckConstraint(condition=Q(n_right__lte=F("n_screens")), name="qualification_right_within_served"),
        ]

    def __str__(self):
        return f"{self.rater_id} {'passed' if self.passed else 'failed'} training in {self.project_id}"

    @property
    def admitted(self) -> bool:
        return self.passed or self.admitted_at is not None
