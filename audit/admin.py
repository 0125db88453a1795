"""The audit log in the admin: searchable, filterable and read-only (no add, change or delete)."""

from django.contrib import admin

from .models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = ["created_at", "actor_name", "action", "target", "project_name", "source", "ip"]
    list_filter = ["action", "source"]
    search_fields = ["actor_name", "action", "target", "project_name"]
    date_hierarchy = "created_at"

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
