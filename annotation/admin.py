"""Admin for every annotation model, with the filters and searches leads need."""

from django.contrib import admin

from annotation.models import (
    AdaptiveAllocationState,
    AdjudicatedSpan,
    AdjudicatedValue,
    AdjudicationCase,
    Assignment,
    Criterion,
    ErrorSpan,
    Item,
    ItemFlag,
    Judgment,
    Membership,
    Output,
    ProfileField,
    Project,
    ProposedSpan,
    QcRules,
    QualificationOutcome,
    RaterAction,
    RaterExclusion,
    RaterProfile,
)


class CriterionInline(admin.TabularInline):
    model = Criterion
    extra = 0


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "task_type",
        "status",
        "raters_per_item",
        "double_annotation_share",
        "gold_rate",
        "created_at",
    ]
    list_filter = ["task_type", "status"]
    search_fields = ["name"]
    inlines = [CriterionInline, MembershipInline]


@admin.register(Criterion)
class CriterionAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "scale_min", "scale_max"]
    list_filter = ["project"]
    search_fields = ["name", "project__name"]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "project", "role", "external_name", "is_paused"]
    list_filter = ["role", "is_paused", "project"]
    search_fields = ["user__username", "external_name", "project__name"]
    raw_id_fields = ["user", "project"]


class OutputInline(admin.TabularInline):
    model = Output
    extra = 0


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["external_id", "project", "subgroup", "n_target", "n_judged", "created_at"]
    list_filter = ["project", "subgroup", ("gold", admin.EmptyFieldListFilter)]
    search_fields = ["external_id", "input"]
    raw_id_fields = ["project"]
    inlines = [OutputInline]


@admin.register(Output)
class OutputAdmin(admin.ModelAdmin):
    list_display = ["system", "item", "position"]
    list_filter = ["system"]
    search_fields = ["system", "item__external_id", "text"]
    raw_id_fields = ["item"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["id", "item", "rater", "status", "served_at", "expires_at"]
    list_filter = ["status", "project"]
    search_fields = ["rater__username", "item__external_id"]
    raw_id_fields = ["project", "item", "rater"]


@admin.register(Judgment)
class JudgmentAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "item",
        "output",
        "criterion",
        "rater",
        "value",
        "label",
        "source",
        "is_current",
        "submitted_at",
    ]
    list_filter = ["source", "is_current", "project", "criterion__name"]
    search_fields = ["rater__username", "item__external_id", "output__system"]
    raw_id_fields = ["project", "item", "output", "criterion", "rater", "assignment"]
    date_hierarchy = "submitted_at"


@admin.register(ErrorSpan)
class ErrorSpanAdmin(admin.ModelAdmin):
    list_display = ["id", "judgment", "side", "start", "end", "severity", "category", "origin"]
    list_filter = ["side", "severity", "origin"]
    search_fields = ["category", "judgment__rater__username", "judgment__item__external_id"]
    raw_id_fields = ["judgment", "proposal"]


@admin.register(ProposedSpan)
class ProposedSpanAdmin(admin.ModelAdmin):
    list_display = ["id", "output", "side", "start", "end", "severity", "category"]
    list_filter = ["side", "severity"]
    search_fields = ["category", "output__system", "output__item__external_id"]
    raw_id_fields = ["output"]


@admin.register(ItemFlag)
class ItemFlagAdmin(admin.ModelAdmin):
    list_display = ["item", "rater", "reason", "created_at"]
    list_filter = ["reason", "project"]
    search_fields = ["item__external_id", "rater__username", "comment"]
    raw_id_fields = ["project", "item", "assignment", "rater"]


@admin.register(QcRules)
class QcRulesAdmin(admin.ModelAdmin):
    """Read-only: rules are versioned by the lead's API and page, never edited here."""

    list_display = [
        "project",
        "version",
        "gold_accuracy_threshold",
        "min_gold_answered",
        "action",
        "min_seconds_per_judgment",
        "straight_line_run",
        "created_at",
    ]
    list_filter = ["action"]
    search_fields = ["project__name"]

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(RaterAction)
class RaterActionAdmin(admin.ModelAdmin):
    """Read-only: the log is written by the quality-control services."""

    list_display = ["created_at", "project", "rater", "kind", "rule", "by", "reason"]
    list_filter = ["kind", "rule"]
    search_fields = ["rater__username", "reason", "project__name"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False


@admin.register(RaterExclusion)
class RaterExclusionAdmin(admin.ModelAdmin):
    """Read-only: exclusions are recorded and lifted by the quality-control services (with a logged action)."""

    list_display = ["created_at", "project", "rater"]
    search_fields = ["rater__username", "project__name"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(QualificationOutcome)
class QualificationOutcomeAdmin(RaterExclusionAdmin):
    """Read-only, as exclusions: the gate decides outcomes, and a lead admits a rater through quality control."""

    list_display = ["decided_at", "project", "rater", "n_right", "n_screens", "passed", "admitted_at"]
    list_filter = ["passed"]


@admin.register(AdjudicationCase)
class AdjudicationCaseAdmin(RaterExclusionAdmin):
    """Read-only: the adjudication services queue items and take the one answer per item."""

    list_display = ["opened_at", "project", "item", "adjudicator", "adjudicated_at"]
    search_fields = ["item__external_id", "project__name"]


@admin.register(AdjudicatedValue)
class AdjudicatedValueAdmin(RaterExclusionAdmin):
    list_display = ["case", "output", "criterion", "value", "label"]
    search_fields = ["case__item__external_id"]


@admin.register(AdjudicatedSpan)
class AdjudicatedSpanAdmin(RaterExclusionAdmin):
    list_display = ["value", "side", "start", "end", "severity", "category", "origin"]
    search_fields = ["value__case__item__external_id"]


@admin.register(ProfileField)
class ProfileFieldAdmin(RaterExclusionAdmin):
    """Read-only: the lead sets the form through the API, which refuses changes once the study has started."""

    list_display = ["project", "position", "name", "kind", "required", "sensitive"]
    search_fields = ["name", "project__name"]


@admin.register(RaterProfile)
class RaterProfileAdmin(RaterExclusionAdmin):
    """Read-only, and without the answers in the list: they are the rater's to give."""

    list_display = ["membership", "consented", "answered_at"]
    search_fields = ["membership__project__name"]


@admin.register(AdaptiveAllocationState)
class AdaptiveAllocationStateAdmin(admin.ModelAdmin):
    """Read-only: the adaptive-allocation refresh job writes it."""

    list_display = ["project", "n_judgments", "judgments_through"]
    readonly_fields = ["project", "probabilities", "judgments_through", "n_judgments"]
