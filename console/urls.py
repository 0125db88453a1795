from django.urls import path

from . import apis, views_allocation, views_items, views_progress, views_wizard

api_urlpatterns = [
    path("projects/<int:pk>/progress/summary/", apis.ProgressSummaryApi.as_view(), name="api-progress-summary"),
]

urlpatterns = [
    path("projects/new/", views_wizard.project_new, name="console-project-new"),
    path("projects/new/preview/", views_wizard.project_new_preview, name="console-project-new-preview"),
    path("projects/<int:pk>/settings/", views_wizard.project_settings, name="console-project-settings"),
    path("projects/<int:pk>/settings/preview/", views_wizard.project_preview, name="console-project-preview"),
    path("projects/<int:pk>/status/", views_wizard.project_status, name="console-project-status"),
    path("projects/<int:pk>/clone/", views_wizard.project_clone_page, name="console-project-clone"),
    path("projects/<int:pk>/items/upload/", views_items.item_upload, name="console-item-upload"),
    path("projects/<int:pk>/items/", views_items.item_browser, name="console-items"),
    path("projects/<int:pk>/items/<int:item_pk>/", views_items.item_detail, name="console-item-detail"),
    path("projects/<int:pk>/progress/", views_progress.progress_page, name="console-progress"),
    path("projects/<int:pk>/allocation/", views_allocation.allocation_page, name="console-allocation"),
]
