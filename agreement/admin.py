"""Admin for stored snapshots, a recompute's staged rows, alert rules and alerts."""

from django.contrib import admin

from agreement.models import AgreementAlert, AgreementSettings, AgreementSnapshot, AgreementSnapshotStaging


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


@admin.register(AgreementSnapshotStaging)
class AgreementSnapshotStagingAdmin(admin.ModelAdmin):
    """Rows a recompute's batches staged; they live until the recompute's swap or its clean-up, so rows seen here
    belong to a running recompute (or one whose clean-up has not run yet). Read-only."""

    list_display = ["job", "batch", "project", "week_start", "window", "scope_key", "statistic", "value"]
    list_filter = ["window", "scope", "statistic"]
    search_fields = ["scope_key", "statistic"]
    raw_id_fields = ["job", "project", "criterion", "rater_a", "rater_b"]

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
