"""Admin views of metric scores, judges and calibrators (read-mostly; writes go through the services)."""

from django.contrib import admin

from evaluation.models import Calibrator, Judge, JudgeRating, MetricScore


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
