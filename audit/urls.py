from django.urls import path

from . import apis, views

api_urlpatterns = [
    path("projects/<int:pk>/audit/", apis.AuditListApi.as_view(), name="api-audit"),
]

urlpatterns = [
    path("projects/<int:pk>/audit/", views.audit_log, name="audit-log"),
]
