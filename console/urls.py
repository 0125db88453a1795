from django.urls import path

from . import (
    apis,
    audit_apis,
    views_allocation,
    views_audit,
    views_items,
    views_lifecycle,
    views_progress,
    views_wizard,
)

api_urlpatterns = [
    path("projects/<int:pk>/progress/summary/", apis.ProgressSummaryApi.as_view(), name="api-progress-summary"),
    path("projects/<int:pk>/archive/", apis.ProjectArchiveApi.as_view(), name="api-project-archive"),
    path("projects/<int:pk>/restore/", apis.ProjectRestoreApi.as_view(), name="api-project-restore"),
    path("projects/<int:pk>/delete/", apis.ProjectDeleteApi.as_view(), name="api-project-delete"),
    path("projects/<int:pk>/audit/", audit_apis.AuditListApi.as_view(), name="api-audit"),
]

urlpatterns = [
    path("projects/new/", views_wizard.project_new, name="console-project-new"),
    path("projects/new/preview/", views_wizard.project_new_preview, name="console-project-new-preview"),
    path("projects/<int:pk>/settings/", views_wizard.project_settings, name="console-project-settings"),
    path("projects/<int:pk>/settings/preview/", views_wizard.project_preview, name="console-project-preview"),
    path("projects/<int:pk>/status/", views_wizard.project_status, name="console-project-status"),
    path("projects/<int:pk>/try/", views_wizard.project_try, name="console-project-try"),
    path("projects/<int:pk>/clone/", views_wizard.project_clone_page, name="console-project-clone"),
    path("projects/<int:pk>/items/upload/", views_items.item_upload, name="console-item-upload"),
    path("projects/<int:pk>/items/", views_items.item_browser, name="console-items"),
    path("projects/<int:pk>/items/update/", views_items.item_update_upload, name="console-item-update"),
    path("projects/<int:pk>/items/update/<int:job_id>/", views_items.item_update_job, name="console-item-update-job"),
    path("projects/<int:pk>/items/<int:item_pk>/", views_items.item_detail, name="console-item-detail"),
    path("projects/<int:pk>/items/<int:item_pk>/retire/", views_items.item_retire_toggle, name="console-item-retire"),
    path("projects/<int:pk>/items/<int:item_pk>/replace/", views_items.item_replace, name="console-item-replace"),
    path("projects/<int:pk>/items/id/<path:external_id>/", views_items.item_detail_by_external_id, name="console-item"),
    path("projects/<int:pk>/archive/", views_lifecycle.project_archive_page, name="console-project-archive"),
    path("projects/<int:pk>/restore/", views_lifecycle.project_restore_page, name="console-project-restore"),
    path("projects/<int:pk>/delete/", views_lifecycle.project_delete_page, name="console-project-delete"),
    path("projects/<int:pk>/progress/", views_progress.progress_page, name="console-progress"),
    path("projects/<int:pk>/allocation/", views_allocation.allocation_page, name="console-allocation"),
    path("projects/<int:pk>/audit/", views_audit.audit_log, name="audit-log"),
]
