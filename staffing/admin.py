"""Admin for the staffing models (staff only; leads use the team pages)."""

from django.contrib import admin

from staffing.models import ExternalLink, ExternalWorker, Invite, PasswordChangeRequired


@admin.register(Invite)
class InviteAdmin(admin.ModelAdmin):
    list_display = ["id", "project", "n_used", "max_uses", "expires_at", "revoked_at", "created_by"]
    list_filter = ["project"]
    raw_id_fields = ["project", "created_by"]


@admin.register(ExternalLink)
class ExternalLinkAdmin(admin.ModelAdmin):
    list_display = [
        "project",
        "is_enabled",
        "max_identities",
        "max_identities_per_address",
        "prolific_study_id",
        "created_at",
        "created_by",
    ]
    raw_id_fields = ["project", "created_by"]


@admin.register(ExternalWorker)
class ExternalWorkerAdmin(admin.ModelAdmin):
    list_display = ["worker_id", "project", "user", "completion_code", "created_at", "completed_at"]
    list_filter = ["project"]
    search_fields = ["worker_id", "completion_code"]
    raw_id_fields = ["project", "user"]


@admin.register(PasswordChangeRequired)
class PasswordChangeRequiredAdmin(admin.ModelAdmin):
    list_display = ["user", "created_at"]
    raw_id_fields = ["user"]
