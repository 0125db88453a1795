"""What leads (and staff) did to a project: one append-only row per action."""
from django.conf import settings
from django.db import models


class AuditEntry(models.Model):
    project = models.ForeignKey("annotation.Project", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="audit_entries")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+")
    # Kept beside the foreign keys so the log still reads after a user or project is deleted.
    actor_name = models.CharField(max_length=150, blank=True)
    project_name = models.CharField(max_length=200, blank=True)
    action = models.CharField(max_length=64, help_text="Dotted verb, e.g. project.create, items.import, export.run.")
    target = models.CharField(max_length=255, blank=True, help_text="What the action touched, e.g. a rater's name.")
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["project", "-created_at"], name="audit_project_recent")]
        verbose_name_plural = "audit entries"

    def __str__(self):
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor_name} {self.action} {self.target}".strip()
