from django.urls import path

from . import views_wizard

api_urlpatterns = []

urlpatterns = [
    path("projects/new/", views_wizard.project_new, name="console-project-new"),
    path("projects/new/preview/", views_wizard.project_new_preview, name="console-project-new-preview"),
    path("projects/<int:pk>/settings/", views_wizard.project_settings, name="console-project-settings"),
    path("projects/<int:pk>/settings/preview/", views_wizard.project_preview, name="console-project-preview"),
    path("projects/<int:pk>/status/", views_wizard.project_status, name="console-project-status"),
    path("projects/<int:pk>/clone/", views_wizard.project_clone_page, name="console-project-clone"),
]
