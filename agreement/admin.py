"""Admin for stored snapshots, alert rules and alerts."""

from django.contrib import admin

from agreement.models import AgreementAlert, AgreementSettings, AgreementSnapshot


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
