"""The API routes of what every app shares: watching background jobs."""

from django.urls import path

from core.job_apis import JobDetailApi

api_urlpatterns = [
    path("jobs/<int:pk>/", JobDetailApi.as_view(), name="api-job"),
]
