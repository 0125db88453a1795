from django.urls import path

from . import apis, views

api_urlpatterns = [
    path("projects/<int:pk>/agreement/", apis.AgreementListApi.as_view(), name="api-agreement"),
    path(
        "projects/<int:pk>/agreement/recompute/", apis.AgreementRecomputeApi.as_view(), name="api-agreement-recompute"
    ),
    path("projects/<int:pk>/agreement/settings/", apis.AgreementSettingsApi.as_view(), name="api-agreement-settings"),
]

urlpatterns = [
    path("projects/<int:pk>/agreement/", views.dashboard, name="agreement-dashboard"),
    path("projects/<int:pk>/agreement/recompute/", views.recompute, name="agreement-recompute"),
    path("projects/<int:pk>/agreement/auto/", views.auto_recompute, name="agreement-auto-recompute"),
]
