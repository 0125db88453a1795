from django.urls import path

from . import apis, views_items, views_progress

api_urlpatterns = [
    path("projects/<int:pk>/progress/summary/", apis.ProgressSummaryApi.as_view(), name="api-progress-summary"),
]

urlpatterns = [
    path("projects/<int:pk>/items/upload/", views_items.item_upload, name="console-item-upload"),
    path("projects/<int:pk>/items/", views_items.item_browser, name="console-items"),
    path("projects/<int:pk>/items/<int:item_pk>/", views_items.item_detail, name="console-item-detail"),
    path("projects/<int:pk>/progress/", views_progress.progress_page, name="console-progress"),
]
