"""Admin for stored snapshots (the current generation's) and their generations, alert rules and alerts."""

from django.contrib import admin

from agreement.models import AgreementAlert, AgreementSettings, AgreementSnapshot, SnapshotGeneration


@admin.register(AgreementSnapshot)
class AgreementSnapshotAdmin(admin.ModelAdmin):
    list_display = [
        "project",
        "week_start",
        "window",
        "scope_key",
        "statistic",
        "value",
        "ci_low",
        "ci_high",
        "n_units",
        "status",
        "unreliable",
    ]
    list_filter = ["window", "scope", "status", "unreliable", "statistic", "project"]
    search_fields = ["scope_key", "statistic", "subgroup"]
    raw_id_fields = ["project", "criterion", "rater_a", "rater_b"]
    date_hierarchy = "week_start"


@admin.register(SnapshotGeneration)
class SnapshotGenerationAdmin(admin.ModelAdmin):
    """Which generation of each project's snapshot rows is shown, and the latest one handed to a recompute (rows
    of a running recompute's generation are not listed with the snapshots until it becomes current). Read-only:
    recomputes move it."""

    list_display = ["project", "current", "last"]
    raw_id_fields = ["project"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(AgreementSettings)
class AgreementSettingsAdmin(admin.ModelAdmin):
    list_display = ["project", "alert_below", "alert_drop", "email_leads"]


@admin.register(AgreementAlert)
class AgreementAlertAdmin(admin.ModelAdmin):
    list_display = [
        "project",
        "criterion",
        "week_start",
        "kind",
        "statistic",
        "value",
        "previous_value",
        "created_at",
        "delivery",
        "sent_at",
        "attempts",
    ]
    list_filter = ["kind", "delivery", "project"]
    search_fields = ["message"]
