"""Admin views of metric scores, judges, calibrators and exports (read-mostly; writes go through the services)."""

from django.contrib import admin

from evaluation.models import (
    Calibrator,
    Export,
    Judge,
    JudgeRating,
    MetricInput,
    MetricScore,
    RaterModelsResult,
    Vote,
    VoteImport,
    VoteName,
)


@admin.register(MetricScore)
class MetricScoreAdmin(admin.ModelAdmin):
    list_display = ["name", "output", "value", "source", "project"]
    list_filter = ["source", "project"]
    search_fields = ["name"]
    raw_id_fields = ["output", "project"]


@admin.register(Judge)
class JudgeAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "project", "created_at"]
    list_filter = ["kind", "project"]


@admin.register(JudgeRating)
class JudgeRatingAdmin(admin.ModelAdmin):
    list_display = ["judge", "output", "criterion", "value"]
    raw_id_fields = ["output", "criterion", "judge"]


@admin.register(Calibrator)
class CalibratorAdmin(admin.ModelAdmin):
    list_display = ["name", "criterion", "project", "created_at"]
    readonly_fields = ["params", "report"]


@admin.register(Export)
class ExportAdmin(admin.ModelAdmin):
    list_display = ["id", "project", "created_by", "created_at", "finished_at", "n_judgments", "size_bytes"]
    list_filter = ["project"]
    search_fields = ["file", "sha256"]
    raw_id_fields = ["project", "job", "created_by"]
    readonly_fields = ["options", "file", "size_bytes", "sha256", "n_judgments", "finished_at"]


@admin.register(MetricInput)
class MetricInputAdmin(admin.ModelAdmin):
    list_display = ["kind", "original_name", "size_bytes", "project", "uploaded_by"]
    list_filter = ["kind", "project"]
    raw_id_fields = ["project", "uploaded_by"]


@admin.register(RaterModelsResult)
class RaterModelsResultAdmin(admin.ModelAdmin):
    """Read-only: a rater-models job writes it."""

    list_display = ["project", "seed", "computed_at", "n_judgments"]
    list_filter = ["project"]
    readonly_fields = ["project", "seed", "report", "computed_at", "n_judgments", "judgments_through"]


@admin.register(VoteImport)
class VoteImportAdmin(admin.ModelAdmin):
    """Read-only: the vote import writes it (and its votes, kept out of the admin: millions of rows)."""

    list_display = ["project", "criterion", "file_name", "layout", "n_votes", "created_at"]
    list_filter = ["project"]
    readonly_fields = ["project", "criterion", "file_name", "layout", "n_votes", "created_by", "created_at"]


@admin.register(VoteName)
class VoteNameAdmin(admin.ModelAdmin):
    list_display = ["project", "kind", "code", "name"]
    list_filter = ["project", "kind"]
    readonly_fields = ["project", "kind", "code", "name"]


@admin.register(Vote)
class VoteAdmin(admin.ModelAdmin):
    """Read-only, and counted without COUNT(*) over ten million rows (show_full_result_count)."""

    list_display = ["batch", "system_a", "system_b", "outcome", "rater", "prompt"]
    raw_id_fields = ["batch"]
    show_full_result_count = False
    readonly_fields = [
        "batch",
        "system_a",
        "system_b",
        "outcome",
        "rater",
        "prompt",
        "submitted_at",
        "sampling_probability",
    ]
