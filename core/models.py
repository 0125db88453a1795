"""What every app records: the background jobs users start and watch."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class Job(models.Model):
    """A background job a user started (agreement recompute, export, metrics...), with its progress.

    The Celery task id is kept for operators; clients poll ``/api/v1/jobs/{id}/``.
    """

    class State(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        SUCCESS = "success"
        FAILURE = "failure"

    kind = models.CharField(max_length=64)
    # Named, not imported: core imports none of the apps above it.
    project = models.ForeignKey(
        "annotation.Project", null=True, blank=True, on_delete=models.CASCADE, related_name="jobs"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    progress = models.FloatField(default=0.0, help_text="Share done, 0 to 1.")
    message = models.CharField(max_length=500, blank=True)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    celery_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(progress__gte=0, progress__lte=1), name="job_progress_in_unit_interval"),
        ]
        indexes = [models.Index(fields=["project", "kind", "-created_at"], name="job_project_kind_time")]
        db_table = "annotation_job"  # the table it had in annotation, kept when the model moved here

    def __str__(self):
        return f"{self.kind} job {self.pk} ({self.state})"
