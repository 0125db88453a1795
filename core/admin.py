from django.contrib import admin

from core.models import Job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "project", "state", "progress", "created_by", "created_at", "finished_at"]
    list_filter = ["kind", "state"]
    search_fields = ["celery_id", "error", "message"]
    raw_id_fields = ["project", "created_by"]
    readonly_fields = ["celery_id", "created_at", "started_at", "finished_at"]
